// How values merge, per path (ListShape, declared in field_manager.hpp): the built-in table of
// k8s.io/api markers and the lookup through a CRD's openAPIV3Schema.
//   https://github.com/kubernetes/api (+listType, +listMapKey, +patchMergeKey, +structType, +mapType)
//   https://kubernetes.io/docs/reference/using-api/server-side-apply/#merge-strategy
#include "core/apiserver/field_manager.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::core::apiserver::smd {

namespace {

ListShape keyedBy(std::vector<std::string> keys, json::object defaults = {}) {
    ListShape s;
    s.kind = ListShape::Map;
    s.keys = std::move(keys);
    s.keyDefaults = std::move(defaults);
    return s;
}

ListShape withObject(ListShape::ObjectKind kind, ListShape s = {}) {
    s.object = kind;
    return s;
}

ListShape setList() {
    ListShape s;
    s.kind = ListShape::Set;
    return s;
}

struct ShapeRule {
    std::vector<std::string> pattern;
    bool exact;  // the whole path, rather than its tail
    ListShape shape;
};

bool ruleMatches(const ShapeRule& r, const std::vector<std::string>& path) {
    if (r.exact) return path == r.pattern;
    return path.size() >= r.pattern.size() && std::equal(r.pattern.rbegin(), r.pattern.rend(), path.rbegin());
}

// k8s.io/api markers (+listType/+listMapKey/+patchMergeKey, +structType=atomic, map[string]string).
std::vector<ShapeRule> builtinRules(std::string_view kind) {
    const json::object tcp{{"protocol", "TCP"}};
    const ListShape freeForm = withObject(ListShape::FreeForm), atomicObject = withObject(ListShape::AtomicObject);
    const bool servicePorts = kind.empty() || kind == "Service";
    return {
        {{"metadata", "finalizers"}, true, setList()},
        {{"metadata", "ownerReferences"}, true, keyedBy({"uid"})},
        {{"spec", "ports"}, true, servicePorts ? keyedBy({"port", "protocol"}, tcp) : ListShape{}},
        {{"data"}, true, freeForm},
        {{"stringData"}, true, freeForm},
        {{"binaryData"}, true, freeForm},
        {{"containers", "ports"}, false, keyedBy({"containerPort", "protocol"}, tcp)},
        {{"initContainers", "ports"}, false, keyedBy({"containerPort", "protocol"}, tcp)},
        {{"ephemeralContainers", "ports"}, false, keyedBy({"containerPort", "protocol"}, tcp)},
        {{"resources", "claims"}, false, keyedBy({"name"})},
        {{"metadata", "labels"}, false, freeForm},
        {{"metadata", "annotations"}, false, freeForm},
        {{"containers"}, false, keyedBy({"name"})},
        {{"initContainers"}, false, keyedBy({"name"})},
        {{"ephemeralContainers"}, false, keyedBy({"name"})},
        {{"env"}, false, keyedBy({"name"})},
        {{"volumeMounts"}, false, keyedBy({"mountPath"})},
        {{"volumeDevices"}, false, keyedBy({"devicePath"})},
        {{"volumes"}, false, keyedBy({"name"})},
        {{"imagePullSecrets"}, false, keyedBy({"name"})},
        {{"hostAliases"}, false, keyedBy({"ip"})},
        {{"topologySpreadConstraints"}, false, keyedBy({"topologyKey", "whenUnsatisfiable"})},
        {{"resourceClaims"}, false, keyedBy({"name"})},
        {{"schedulingGates"}, false, keyedBy({"name"})},
        {{"conditions"}, false, keyedBy({"type"})},
        {{"limits"}, false, freeForm},
        {{"requests"}, false, freeForm},
        {{"capacity"}, false, freeForm},
        {{"allocatable"}, false, freeForm},
        {{"hard"}, false, freeForm},
        {{"used"}, false, freeForm},
        {{"nodeSelector"}, false, freeForm},
        {{"matchLabels"}, false, freeForm},
        {{"selector"}, false, atomicObject},  // LabelSelector; Service/RC selectors are +mapType=atomic
        {{"labelSelector"}, false, atomicObject},
        {{"namespaceSelector"}, false, atomicObject},
        {{"requiredDuringSchedulingIgnoredDuringExecution"}, false, atomicObject},
        {{"configMapKeyRef"}, false, atomicObject},
        {{"secretKeyRef"}, false, atomicObject},
        {{"fieldRef"}, false, atomicObject},
        {{"resourceFieldRef"}, false, atomicObject},
    };
}

const json::object* member(const json::object* node, std::string_view key) {
    auto const* v = node ? node->if_contains(key) : nullptr;
    return v && v->is_object() ? &v->get_object() : nullptr;
}

bool flag(const json::object* node, std::string_view key) {
    auto const* v = node ? node->if_contains(key) : nullptr;
    return v && v->is_bool() && v->get_bool();
}

std::string text(const json::object* node, std::string_view key) {
    auto const* v = node ? node->if_contains(key) : nullptr;
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// Array schemas are transparent in paths: step into their items.
const json::object* elementSchema(const json::object* node) {
    while (node && (text(node, "type") == "array" || member(node, "items")) && member(node, "items"))
        node = member(node, "items");
    return node;
}

bool freeFormMap(const json::object* node) {
    auto const* ap = node ? node->if_contains("additionalProperties") : nullptr;
    return (ap && (ap->is_object() || (ap->is_bool() && ap->get_bool()))) || flag(node, "x-kubernetes-preserve-unknown-fields");
}

ListShape::ObjectKind objectKindOf(const json::object* node) {
    if (text(node, "x-kubernetes-map-type") == "atomic") return ListShape::AtomicObject;
    if (member(node, "properties")) return ListShape::Struct;
    return freeFormMap(node) ? ListShape::FreeForm : ListShape::Struct;
}

ListShape shapeOfSchema(const json::object* node) {
    ListShape s;
    s.object = objectKindOf(elementSchema(node));
    if (!member(node, "items")) return s;
    std::string listType = text(node, "x-kubernetes-list-type");
    if (listType == "set") s.kind = ListShape::Set;
    if (listType != "map") return s;
    s.kind = ListShape::Map;
    auto const* keys = node->if_contains("x-kubernetes-list-map-keys");
    auto const* props = member(member(node, "items"), "properties");
    for (auto const& k : keys && keys->is_array() ? keys->get_array() : json::array()) {
        if (!k.is_string()) continue;
        s.keys.emplace_back(k.get_string());
        if (auto const* d = props ? member(props, k.get_string()) : nullptr; d && d->contains("default"))
            s.keyDefaults[k.get_string()] = d->at("default");
    }
    return s;
}

// What upstream deduces inside x-kubernetes-preserve-unknown-fields: granular free-form maps, atomic lists.
ListShape deducedShape() { return withObject(ListShape::FreeForm); }

}  // namespace

}  // namespace trainer::core::apiserver::smd

namespace trainer::core::apiserver {

ListShapeFn builtinListShapes(std::string_view kind) {
    auto rules = std::make_shared<const std::vector<smd::ShapeRule>>(smd::builtinRules(kind));
    return [rules](const std::vector<std::string>& path) {
        for (auto const& r : *rules)
            if (smd::ruleMatches(r, path)) return r.shape;
        return ListShape{};
    };
}

ListShapeFn listShapeFromSchema(const json::object* openApiV3Schema, ListShapeFn fallback) {
    auto root = openApiV3Schema ? std::make_shared<const json::object>(*openApiV3Schema) : nullptr;
    return [root, fallback](const std::vector<std::string>& path) -> ListShape {
        auto fromFallback = [&] { return fallback ? fallback(path) : ListShape{}; };
        // ObjectMeta is never described by a CRD schema beyond `type: object`.
        if (!root || (!path.empty() && path[0] == "metadata")) return fromFallback();
        const json::object* node = root.get();
        for (auto const& name : path) {
            node = smd::elementSchema(node);
            if (auto const* field = smd::member(smd::member(node, "properties"), name)) {
                node = field;
                continue;
            }
            if (auto const* ap = smd::member(node, "additionalProperties")) {
                node = ap;
                continue;
            }
            if (smd::freeFormMap(node)) return smd::deducedShape();
            return fromFallback();
        }
        return smd::shapeOfSchema(node);
    };
}

}  // namespace trainer::core::apiserver
