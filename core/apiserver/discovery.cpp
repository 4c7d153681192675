#include "core/apiserver/discovery.hpp"

namespace trainer::core::apiserver {

namespace {

json::array toArray(const std::vector<std::string>& v) {
    json::array a;
    for (auto const& s : v) a.push_back(json::value(s));
    return a;
}

json::object groupEntry(const std::string& group, const std::vector<std::string>& versions) {
    json::array vs;
    for (auto const& v : versions) vs.push_back(json::object{{"groupVersion", group + "/" + v}, {"version", v}});
    json::object preferred = vs.empty() ? json::object{} : vs.front().as_object();
    return json::object{{"name", group}, {"versions", std::move(vs)}, {"preferredVersion", std::move(preferred)}};
}

}  // namespace

json::object apiVersions(const std::string& serverAddress) {
    return json::object{{"kind", "APIVersions"},
                        {"versions", json::array{"v1"}},
                        {"serverAddressByClientCIDRs",
                         json::array{json::object{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", serverAddress}}}}};
}

json::object apiGroupList(const ResourceRegistry& registry) {
    json::array groups;
    for (auto const& [group, versions] : registry.groups())
        if (!group.empty()) groups.push_back(groupEntry(group, versions));
    return json::object{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}};
}

std::optional<json::object> apiGroup(const ResourceRegistry& registry, std::string_view group) {
    for (auto const& [g, versions] : registry.groups())
        if (!g.empty() && g == group) {
            auto e = groupEntry(g, versions);
            e["kind"] = "APIGroup";
            e["apiVersion"] = "v1";
            return e;
        }
    return std::nullopt;
}

std::optional<json::object> apiResourceList(const ResourceRegistry& registry, std::string_view group,
                                            std::string_view version) {
    json::array resources;
    bool any = false;
    for (auto const& resource : registry.all()) {
        const ApiResource& r = *resource;
        if (r.group != group || r.version != version) continue;
        any = true;
        json::object e{{"name", r.plural},         {"singularName", r.singular}, {"namespaced", r.namespaced},
                       {"kind", r.kind},           {"verbs", toArray(r.verbs)}};
        if (!r.shortNames.empty()) e["shortNames"] = toArray(r.shortNames);
        if (!r.categories.empty()) e["categories"] = toArray(r.categories);
        resources.push_back(std::move(e));
        // pods/log, as the kube-apiserver lists it (kubectl logs needs it).
        if (r.group.empty() && r.kind == "Pod")
            resources.push_back(json::object{{"name", "pods/log"},
                                             {"singularName", ""},
                                             {"namespaced", true},
                                             {"kind", "Pod"},
                                             {"verbs", json::array{"get"}}});
        if (r.statusSubresource)
            resources.push_back(json::object{{"name", r.plural + "/status"},
                                             {"singularName", ""},
                                             {"namespaced", r.namespaced},
                                             {"kind", r.kind},
                                             {"verbs", json::array{"get", "patch", "update"}}});
    }
    if (!any) return std::nullopt;
    std::string gv = group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
    return json::object{{"kind", "APIResourceList"}, {"apiVersion", "v1"}, {"groupVersion", gv},
                        {"resources", std::move(resources)}};
}

json::object versionInfo() {
    return json::object{{"major", "1"},
                        {"minor", "32"},
                        {"gitVersion", "v1.32.0+trainer-operator." TRAINER_VERSION},
                        {"gitCommit", ""},
                        {"gitTreeState", "clean"},
                        {"buildDate", "1970-01-01T00:00:00Z"},
                        {"goVersion", "n/a (C++20)"},
                        {"compiler", "gcc"},
                        {"platform", "linux/amd64"}};
}

}  // namespace trainer::core::apiserver
