#include "core/apiserver/openapi.hpp"

#include <functional>

namespace trainer::core::apiserver {

namespace {

std::string pathOf(const std::string& group, const std::string& version) {
    return group.empty() ? "api/" + version : "apis/" + group + "/" + version;
}

json::object gvk(const ApiResource& r) {
    return json::object{{"group", r.group}, {"version", r.version}, {"kind", r.kind}};
}

// "trainer.kubeflow.org" -> "org.kubeflow.trainer".
std::string reversedGroup(const std::string& group) {
    std::string out;
    size_t end = group.size();
    while (end > 0) {
        auto dot = group.rfind('.', end - 1);
        size_t start = dot == std::string::npos ? 0 : dot + 1;
        out += (out.empty() ? "" : ".") + group.substr(start, end - start);
        if (dot == std::string::npos) break;
        end = dot;
    }
    return out;
}

json::array parameters() {
    json::array out;
    for (auto name : {"dryRun", "fieldManager", "fieldValidation", "force"})
        out.push_back(json::object{{"name", name}, {"in", "query"}, {"schema", json::object{{"type", "string"}}},
                                   {"uniqueItems", true}});
    return out;
}

// The item path of a resource with its operations.
json::object itemOperations(const ApiResource& r) {
    auto op = [&](const char* id) {
        return json::object{{"operationId", std::string(id) + r.kind},
                            {"x-kubernetes-group-version-kind", gvk(r)},
                            {"parameters", parameters()},
                            {"responses", json::object{{"200", json::object{{"description", "OK"}}}}}};
    };
    return json::object{{"get", op("read")}, {"put", op("replace")}, {"patch", op("patch")}, {"delete", op("delete")}};
}

}  // namespace

json::object openApiV3Root(const ResourceRegistry& registry) {
    json::object paths;
    for (auto const& [group, versions] : registry.groups())
        for (auto const& v : versions) {
            auto p = pathOf(group, v);
            auto doc = openApiV3Document(registry, p);
            auto hash = std::to_string(std::hash<std::string>{}(doc ? json::serialize(*doc) : ""));
            paths[p] = json::object{{"serverRelativeURL", "/openapi/v3/" + p + "?hash=" + hash}};
        }
    return json::object{{"paths", std::move(paths)}};
}

std::optional<json::object> openApiV3Document(const ResourceRegistry& registry, std::string_view gvPath) {
    json::object paths;
    for (auto const& resource : registry.all()) {
        const ApiResource& r = *resource;
        if (pathOf(r.group, r.version) != gvPath) continue;
        std::string base = "/" + pathOf(r.group, r.version) + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.plural;
        paths[base + "/{name}"] = itemOperations(r);
        if (r.statusSubresource) paths[base + "/{name}/status"] = itemOperations(r);
    }
    if (paths.empty()) return std::nullopt;
    // A CRD's schema, as the API server publishes it (named by the reversed group; kubectl explain
    // finds it by its x-kubernetes-group-version-kind).
    json::object schemas;
    for (auto const& resource : registry.all()) {
        const ApiResource& r = *resource;
        if (pathOf(r.group, r.version) != gvPath || r.schema.empty()) continue;
        json::object schema = r.schema;
        schema["x-kubernetes-group-version-kind"] = json::array{gvk(r)};
        schemas[reversedGroup(r.group) + "." + r.version + "." + r.kind] = std::move(schema);
    }
    return json::object{{"openapi", "3.0.0"},
                        {"info", json::object{{"title", "trainer-operator"}, {"version", "v1.32.0"}}},
                        {"paths", std::move(paths)},
                        {"components", json::object{{"schemas", std::move(schemas)}}}};
}

}  // namespace trainer::core::apiserver
