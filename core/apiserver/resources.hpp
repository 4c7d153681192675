// The resources the API server serves: built-in kinds (a table), CustomResourceDefinitions
// (the trainer CRDs seeded at start-up, any CRD a client creates) and the kinds the loaded
// plugins claim or watch. Discovery, routing, admission and printing all read this one registry.
#pragma once

#include "core/api/object_set.hpp"

#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

namespace trainer::core::apiserver {

struct ApiResource {
    std::string group;  // "" for the core group
    std::string version;
    std::string kind;
    std::string plural;
    std::string singular;
    bool namespaced = true;
    bool statusSubresource = false;
    bool builtin = false;  // a built-in kind (strategic merge patch, built-in printer columns)
    std::vector<std::string> verbs;
    std::vector<std::string> shortNames;
    std::vector<std::string> categories;
    json::object schema;          // openAPIV3Schema of a CRD version (defaults, list shapes), or empty
    json::array printerColumns;   // additionalPrinterColumns of a CRD version
    std::string crdName;          // "<plural>.<group>" when defined by a CRD

    std::string apiVersion() const { return group.empty() ? version : group + "/" + version; }
    // "configmaps" or "trainjobs.trainer.kubeflow.org", as API errors name a resource.
    std::string groupResource() const { return group.empty() ? plural : plural + "." + group; }
    bool allows(std::string_view verb) const;
};

class ResourceRegistry {
public:
    // The built-in kinds.
    ResourceRegistry();
    // Serves every served version of a CustomResourceDefinition object (replacing what it served
    // before under the same name); returns false when the object is not a usable CRD.
    bool addCrd(const json::object& crd);
    // Stops serving a CRD's resources.
    void removeCrd(const std::string& crdName);
    // A kind known only by apiVersion and kind (a plugin's claim or watch): derived plural,
    // namespaced, status subresource; ignored when the kind is already served.
    void addKind(const std::string& apiVersion, const std::string& kind);

    // A served resource is shared, never copied: a CRD's carries its whole schema, and every request
    // on its kind looks it up. It stays as it was for its holders when the registry changes (a
    // CRD updated or removed) and for as long as they hold it. Null when nothing matches.
    using Resource = std::shared_ptr<const ApiResource>;
    Resource find(std::string_view group, std::string_view version, std::string_view plural) const;
    Resource findKind(std::string_view apiVersion, std::string_view kind) const;
    std::vector<Resource> all() const;
    // Group names in discovery order (core first, then built-in groups, then the rest sorted),
    // each with its versions.
    std::vector<std::pair<std::string, std::vector<std::string>>> groups() const;

private:
    mutable std::shared_mutex mu_;
    std::vector<Resource> resources_;
};

// The standard verbs of a resource (namespaces lack deletecollection, as upstream).
std::vector<std::string> standardVerbs();

// A CustomResourceDefinition object for the trainer CRDs embedded in the binary (api/crds),
// as `kubectl get crd trainjobs.trainer.kubeflow.org -o yaml` would show the installed one.
std::vector<json::object> embeddedTrainerCrds();

}  // namespace trainer::core::apiserver
