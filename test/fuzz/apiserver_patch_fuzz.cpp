// Fuzz target 4b: PATCH bodies on the embedded API server, as core/apiserver/write_handlers.cpp
// `patched` and handlePatch treat them: merge patch, JSON patch and strategic merge patch of a
// stored object (then the managedFields update recordUpdate makes), and server-side apply of a
// YAML body (decoded as decodeBody does for application/apply-patch+yaml: one YAML document, an
// object) over a stored object or creating one.
// Input: byte 0 picks the media type (% 5: merge, json, strategic, apply, apply creating), byte 1
// the stored object (% 6: Pod, Deployment, ConfigMap, Service, a TrainJob and a
// ClusterTrainingRuntime from examples/), byte 2 the flags (force, status subresource, manager
// "kubectl", fieldValidation Ignore / Strict); the rest is the body.
// A successful apply applied again by the same manager with the same body changes nothing (checked
// for bodies without explicit nulls: see test/fuzz/README.md, "Findings").
#include "core/apiserver/field_manager.hpp"
#include "core/apiserver/patch.hpp"
#include "core/apiserver/resources.hpp"
#include "core/json/io.hpp"
#include "test/fuzz/fuzz_support.hpp"

#include <cstddef>
#include <cstdint>

using namespace trainer::core;
using namespace trainer::core::apiserver;

namespace {

constexpr const char* kCreated = "2025-01-01T00:00:00Z";
constexpr const char* kNow = "2025-01-01T00:01:00Z";

struct Stored {
    ApiResource resource;
    ListShapeFn shapes;
    json::object object;
};

const char* const kBuiltin[] = {
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","labels":{"app":"x"},
        "finalizers":["a/b"],"ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"c","uid":"u-9"}]},
        "spec":{"containers":[{"name":"c","image":"i","env":[{"name":"A","value":"1"}],
        "ports":[{"containerPort":80,"protocol":"TCP"}],"volumeMounts":[{"name":"v","mountPath":"/v"}]}],
        "initContainers":[{"name":"init","image":"i"}],"volumes":[{"name":"v","emptyDir":{}}],
        "tolerations":[{"key":"k","operator":"Exists"}]},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})",
    R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default"},
        "spec":{"replicas":2,"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},
        "spec":{"containers":[{"name":"c","image":"i","args":["a","b"]}]}}}})",
    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default","annotations":{"a":"b"}},
        "data":{"k":"v","x":"y"}})",
    R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s","namespace":"default"},
        "spec":{"selector":{"app":"x"},"ports":[{"port":80,"protocol":"TCP"},{"port":80,"protocol":"UDP"}]}})",
};

std::vector<Stored>& stored() {
    static auto* all = [] {
        auto* out = new std::vector<Stored>();  // lives for the process
        ResourceRegistry registry;
        for (auto const& crd : embeddedTrainerCrds()) registry.addCrd(crd);
        std::vector<json::object> objects;
        for (auto const* text : kBuiltin) objects.push_back(json::parse(text).as_object());
        std::vector<InputDocument> docs;
        std::string root = TRAINER_SOURCE_DIR;
        for (auto const* file : {"/examples/20-trainjob-torch-multi-node.yaml", "/examples/local/10-runtime-torch-distributed.yaml"})
            fuzz::require(readInputs({root + file}, docs).ok(), "an example does not read", file);
        for (auto& d : docs) objects.push_back(std::move(d.object));
        for (auto& o : objects) {
            auto k = keyOf(o);
            auto resource = registry.findKind(k.apiVersion, k.kind);
            fuzz::require(resource != nullptr, "no resource serves a fixed object", k.kind);
            ListShapeFn builtin = builtinListShapes(resource->builtin ? resource->kind : "");
            ListShapeFn shapes = resource->schema.empty() ? builtin : listShapeFromSchema(&resource->schema, builtin);
            // Stored as `kubectl apply --server-side` leaves it: managedFields, identity, a version.
            auto r = serverSideApply(nullptr, o, "kubectl", false, kCreated, shapes, resource->statusSubresource);
            fuzz::require(r.ok, "a fixed object does not apply: " + r.message, k.kind);
            auto& md = r.object["metadata"].as_object();
            md["uid"] = "u-" + k.name, md["resourceVersion"] = "7", md["creationTimestamp"] = kCreated;
            out->push_back(Stored{*resource, shapes, std::move(r.object)});
        }
        return out;
    }();
    return *all;
}

std::string text(const json::object& o, std::string_view key) {
    auto const* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// What core/apiserver/handler_support.cpp checkIdentity does to a body before the patch code
// sees it (a request to the stored object's URL): string maps decode, apiVersion and kind filled
// in or matching the resource, namespace and name filled in or matching the URL. False: the
// request is refused there.
bool checkIdentity(const Stored& s, json::object& obj) {
    auto stringMap = [](const json::object& parent, std::string_view member) {
        auto const* m = parent.if_contains(member);
        if (!m || m->is_null()) return true;
        if (!m->is_object()) return false;
        for (auto const& kv : m->as_object())
            if (!kv.value().is_string() && !kv.value().is_null()) return false;
        return true;
    };
    if (auto const* md = obj.if_contains("metadata"); md && md->is_object())
        if (!stringMap(md->as_object(), "labels") || !stringMap(md->as_object(), "annotations")) return false;
    if (s.resource.builtin && s.resource.kind == "ConfigMap" && (!stringMap(obj, "data") || !stringMap(obj, "binaryData")))
        return false;
    auto const& r = s.resource;
    if (r.builtin && text(obj, "kind").empty()) obj["kind"] = r.kind;
    if (r.builtin && text(obj, "apiVersion").empty()) obj["apiVersion"] = r.apiVersion();
    if (text(obj, "kind").empty()) return false;
    if (text(obj, "apiVersion").empty()) obj["apiVersion"] = r.apiVersion();
    if (text(obj, "apiVersion") != r.apiVersion() || text(obj, "kind") != r.kind) return false;
    auto& md = obj["metadata"];
    if (!md.is_object()) md = json::object{};
    auto& m = md.as_object();
    auto key = keyOf(s.object);
    if (r.namespaced) {
        if (text(m, "namespace").empty()) m["namespace"] = key.ns;
        else if (text(m, "namespace") != key.ns) return false;
    } else {
        m.erase("namespace");
    }
    if (text(m, "name").empty()) m["name"] = key.name;
    return text(m, "name") == key.name;
}

json::object withoutManagedFields(json::object o) {
    if (auto* md = o.if_contains("metadata"); md && md->is_object()) md->as_object().erase("managedFields");
    return o;
}

void apply(const Stored& s, const json::object* live, std::string_view body, std::string_view manager, bool force,
           std::string_view subresource) {
    std::vector<json::value> docs;
    std::string error;
    if (!parseYaml(body, docs, error) || docs.size() != 1 || !docs.front().is_object()) return;
    auto& config = docs.front().as_object();
    if (!checkIdentity(s, config)) return;
    auto r = serverSideApply(live, config, manager, force, kNow, s.shapes, s.resource.statusSubresource, subresource);
    if (!r.ok) {
        fuzz::require(r.code == 400 || r.code == 404 || r.code == 409 || r.code == 500, "apply failed with code " + std::to_string(r.code), r.message);
        fuzz::require(r.code != 409 || !r.conflicts.empty(), "a 409 apply names no conflict", r.message);
        return;
    }
    auto again = serverSideApply(&r.object, config, manager, force, kNow, s.shapes, s.resource.statusSubresource, subresource);
    fuzz::require(again.ok, "the same apply again fails: " + again.message, json::serialize(r.object));
    fuzz::require(withoutManagedFields(again.object) == withoutManagedFields(r.object), "the same apply again changes the object",
                  json::serialize(r.object) + "\n" + json::serialize(again.object));
}

void patch(const Stored& s, int media, std::string_view body, std::string_view manager, FieldValidation validation,
           std::string_view subresource) {
    json::value target = s.object;
    PatchResult p = media == 0   ? mergePatch(target, body, validation)
                    : media == 1 ? jsonPatch(target, body, validation)
                                 : strategicMergePatch(target, body, s.resource.apiVersion(), s.resource.kind,
                                                       s.resource.builtin, validation);
    if (!p.ok) {
        fuzz::require(p.code >= 400 && p.code <= 500 && !p.message.empty(), "a failed patch has no HTTP error", p.message);
        (void)statusOf(p);
        return;
    }
    if (!p.value.is_object()) return;
    json::object next = std::move(p.value.as_object());
    if (!checkIdentity(s, next)) return;
    recordUpdate(&s.object, next, manager, kNow, s.shapes, subresource);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 3) return 0;
    auto& all = stored();
    int media = data[0] % 5;
    const Stored& s = all[data[1] % all.size()];
    unsigned flags = data[2];
    bool force = flags & 1;
    std::string_view subresource = flags & 2 ? "status" : "";
    std::string_view manager = flags & 4 ? "kubectl" : "fuzzer";
    auto validation = flags & 8 ? FieldValidation::Ignore : flags & 16 ? FieldValidation::Strict : FieldValidation::Warn;
    std::string_view body(reinterpret_cast<const char*>(data) + 3, size - 3);
    if (media == 3) apply(s, &s.object, body, manager, force, subresource);
    else if (media == 4) apply(s, nullptr, body, manager, force, "");
    else patch(s, media, body, manager, validation, subresource);
    return 0;
}
