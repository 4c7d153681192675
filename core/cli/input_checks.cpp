#include "core/cli/input_checks.hpp"

#include "core/api/object_set.hpp"
#include "core/apiserver/resources.hpp"

#include <set>
#include <unordered_map>

namespace trainer::core::cli {

namespace {

// The resources the operator serves: built-in kinds and the trainer CRDs (built once).
const apiserver::ResourceRegistry& servedKinds() {
    static const auto* registry = [] {
        auto* r = new apiserver::ResourceRegistry();  // lives for the process
        for (auto const& crd : apiserver::embeddedTrainerCrds()) r->addCrd(crd);
        return r;
    }();
    return *registry;
}

const std::set<std::string>& servedGroups() {
    static const std::set<std::string> groups = [] {
        std::set<std::string> g;
        for (auto const& [name, versions] : servedKinds().groups()) g.insert(name);
        return g;
    }();
    return groups;
}

std::string groupOf(const std::string& apiVersion) {
    auto slash = apiVersion.find('/');
    return slash == std::string::npos ? std::string() : apiVersion.substr(0, slash);
}

// "<apiVersion>\n<kind>" of every served kind, built once: a lookup per input object is a set's.
const std::set<std::string, std::less<>>& servedKindNames() {
    static const std::set<std::string, std::less<>> names = [] {
        std::set<std::string, std::less<>> n;
        for (auto const& r : servedKinds().all()) n.insert(r->apiVersion() + "\n" + r->kind);
        return n;
    }();
    return names;
}

bool unknownKind(const ObjectKey& k) {
    if (!servedGroups().contains(groupOf(k.apiVersion))) return false;
    return !servedKindNames().contains(k.apiVersion + "\n" + k.kind);
}

std::string identity(const ObjectKey& k) {
    return k.apiVersion + "\n" + k.kind + "\n" + (k.ns.empty() ? "default" : k.ns) + "\n" + k.name;
}

}  // namespace

Diagnostics checkInputSet(const std::vector<InputDocument>& docs) {
    Diagnostics d;
    std::unordered_map<std::string, const InputDocument*> seen;
    for (auto const& doc : docs) {
        ObjectKey k = keyOf(doc.object);
        if (unknownKind(k)) {
            d.errors.push_back(FieldError{"kind",
                                          "unknown apiVersion/kind \"" + quoteForError(k.apiVersion) + "\" \"" +
                                              quoteForError(k.kind) + "\": no such kind is served in this API group",
                                          ErrorType::NotSupported, doc.origin});
            continue;
        }
        if (k.name.empty()) continue;  // schema validation reports a missing name
        auto [it, fresh] = seen.emplace(identity(k), &doc);
        if (!fresh)
            d.errors.push_back(FieldError{"metadata.name",
                                          "duplicate object " + k.kind + " " + quoteForError(k.ns.empty() ? "default" : k.ns) +
                                              "/" + quoteForError(k.name) + ": also defined in " + it->second->origin,
                                          ErrorType::Duplicate, doc.origin});
    }
    return d;
}

}  // namespace trainer::core::cli
