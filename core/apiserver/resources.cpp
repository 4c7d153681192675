#include "core/apiserver/resources.hpp"

#include "core/api/crd_schemas.hpp"

#include <algorithm>
#include <cctype>
#include <mutex>

namespace trainer::core::apiserver {

namespace {

struct BuiltinRow {
    const char* group;
    const char* version;
    const char* kind;
    const char* plural;
    bool namespaced;
    bool status;
    std::vector<std::string> shortNames;
    std::vector<std::string> categories;
};

// The built-in kinds this project reads or writes, named as the real API server names them.
const std::vector<BuiltinRow>& builtinRows() {
    static const std::vector<BuiltinRow> rows = {
        {"", "v1", "Namespace", "namespaces", false, true, {"ns"}, {}},
        {"", "v1", "ConfigMap", "configmaps", true, false, {"cm"}, {}},
        {"", "v1", "Secret", "secrets", true, false, {}, {}},
        {"", "v1", "Event", "events", true, false, {"ev"}, {}},
        {"", "v1", "Pod", "pods", true, true, {"po"}, {"all"}},
        {"", "v1", "Service", "services", true, true, {"svc"}, {"all"}},
        {"", "v1", "ServiceAccount", "serviceaccounts", true, false, {"sa"}, {}},
        {"", "v1", "LimitRange", "limitranges", true, false, {"limits"}, {}},
        {"batch", "v1", "Job", "jobs", true, true, {}, {"all"}},
        {"apps", "v1", "Deployment", "deployments", true, true, {"deploy"}, {"all"}},
        {"rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", false, false, {}, {}},
        {"rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", false, false, {}, {}},
        {"rbac.authorization.k8s.io", "v1", "Role", "roles", true, false, {}, {}},
        {"rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", true, false, {}, {}},
        {"admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", false,
         false, {}, {"api-extensions"}},
        {"admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", false,
         false, {}, {"api-extensions"}},
        {"events.k8s.io", "v1", "Event", "events", true, false, {"ev"}, {}},
        {"coordination.k8s.io", "v1", "Lease", "leases", true, false, {}, {}},
        {"scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", false, false, {"pc"}, {}},
        {"node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", false, false, {}, {}},
        {"apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", false, true,
         {"crd", "crds"}, {"api-extensions"}},
    };
    return rows;
}

std::string lower(std::string_view s) {
    std::string out;
    for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Like apimachinery's UnsafeGuessKindToResource.
std::string guessPlural(std::string_view kind) {
    std::string s = lower(kind);
    if (s.empty()) return s;
    if (s.back() == 's' || s.back() == 'x' || s.ends_with("ch") || s.ends_with("sh")) return s + "es";
    if (s.back() == 'y' && s.size() > 1 && std::string_view("aeiou").find(s[s.size() - 2]) == std::string_view::npos)
        return s.substr(0, s.size() - 1) + "ies";
    return s + "s";
}

std::vector<std::string> strings(const json::value* v) {
    std::vector<std::string> out;
    if (v && v->is_array())
        for (auto const& x : v->as_array())
            if (x.is_string()) out.emplace_back(x.as_string());
    return out;
}

std::string str(const json::object& o, std::string_view k) {
    auto* v = o.if_contains(k);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

const json::object& obj(const json::object& o, std::string_view k) {
    static const json::object empty;
    auto* v = o.if_contains(k);
    return v && v->is_object() ? v->as_object() : empty;
}

bool sameName(const ApiResource& a, std::string_view group, std::string_view version, std::string_view plural) {
    return a.group == group && a.version == version && a.plural == plural;
}

}  // namespace

std::vector<std::string> standardVerbs() {
    return {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
}

bool ApiResource::allows(std::string_view verb) const {
    return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

ResourceRegistry::ResourceRegistry() {
    for (auto const& r : builtinRows()) {
        ApiResource a;
        a.group = r.group;
        a.version = r.version;
        a.kind = r.kind;
        a.plural = r.plural;
        a.singular = lower(r.kind);
        a.namespaced = r.namespaced;
        a.statusSubresource = r.status;
        a.builtin = true;
        a.verbs = standardVerbs();
        if (a.plural == "namespaces") std::erase(a.verbs, "deletecollection");
        a.shortNames = r.shortNames;
        a.categories = r.categories;
        resources_.push_back(std::make_shared<const ApiResource>(std::move(a)));
    }
}

bool ResourceRegistry::addCrd(const json::object& crd) {
    auto const& spec = obj(crd, "spec");
    auto const& names = obj(spec, "names");
    std::string group = str(spec, "group"), plural = str(names, "plural"), kind = str(names, "kind");
    auto* versions = spec.if_contains("versions");
    if (group.empty() || plural.empty() || kind.empty() || !versions || !versions->is_array()) return false;
    std::vector<ApiResource> served;
    for (auto const& v : versions->as_array()) {
        if (!v.is_object()) continue;
        auto const& ver = v.as_object();
        if (auto* s = ver.if_contains("served"); s && s->is_bool() && !s->as_bool()) continue;
        ApiResource a;
        a.group = group;
        a.version = str(ver, "name");
        a.kind = kind;
        a.plural = plural;
        a.singular = str(names, "singular").empty() ? lower(kind) : str(names, "singular");
        a.namespaced = str(spec, "scope") != "Cluster";
        a.statusSubresource = obj(ver, "subresources").contains("status");
        a.verbs = standardVerbs();
        a.shortNames = strings(names.if_contains("shortNames"));
        a.categories = strings(names.if_contains("categories"));
        a.schema = obj(obj(ver, "schema"), "openAPIV3Schema");
        if (auto* pc = ver.if_contains("additionalPrinterColumns"); pc && pc->is_array()) a.printerColumns = pc->as_array();
        a.crdName = plural + "." + group;
        if (a.version.empty()) continue;
        served.push_back(std::move(a));
    }
    if (served.empty()) return false;
    std::unique_lock lock(mu_);
    std::erase_if(resources_, [&](const Resource& r) {
        if (r->crdName == served.front().crdName) return true;
        // A CRD replaces a kind known only from a plugin claim.
        return !r->builtin && r->crdName.empty() && r->group == group && r->kind == kind;
    });
    for (auto& a : served) resources_.push_back(std::make_shared<const ApiResource>(std::move(a)));
    return true;
}

void ResourceRegistry::removeCrd(const std::string& crdName) {
    std::unique_lock lock(mu_);
    std::erase_if(resources_, [&](const Resource& r) { return r->crdName == crdName; });
}

void ResourceRegistry::addKind(const std::string& apiVersion, const std::string& kind) {
    auto slash = apiVersion.find('/');
    if (kind.empty() || slash == std::string::npos) return;
    std::unique_lock lock(mu_);
    for (auto const& r : resources_)
        if (r->apiVersion() == apiVersion && r->kind == kind) return;
    ApiResource a;
    a.group = apiVersion.substr(0, slash);
    a.version = apiVersion.substr(slash + 1);
    a.kind = kind;
    a.plural = guessPlural(kind);
    a.singular = lower(kind);
    a.statusSubresource = true;
    a.verbs = standardVerbs();
    resources_.push_back(std::make_shared<const ApiResource>(std::move(a)));
}

ResourceRegistry::Resource ResourceRegistry::find(std::string_view group, std::string_view version,
                                                  std::string_view plural) const {
    std::shared_lock lock(mu_);
    for (auto const& r : resources_)
        if (sameName(*r, group, version, plural)) return r;
    return nullptr;
}

ResourceRegistry::Resource ResourceRegistry::findKind(std::string_view apiVersion, std::string_view kind) const {
    std::shared_lock lock(mu_);
    for (auto const& r : resources_)
        if (r->kind == kind && r->apiVersion() == apiVersion) return r;
    return nullptr;
}

std::vector<ResourceRegistry::Resource> ResourceRegistry::all() const {
    std::shared_lock lock(mu_);
    return resources_;
}

std::vector<std::pair<std::string, std::vector<std::string>>> ResourceRegistry::groups() const {
    std::shared_lock lock(mu_);
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    auto add = [&](const ApiResource& r) {
        auto it = std::find_if(out.begin(), out.end(), [&](auto const& g) { return g.first == r.group; });
        if (it == out.end()) {
            out.push_back({r.group, {}});
            it = out.end() - 1;
        }
        if (std::find(it->second.begin(), it->second.end(), r.version) == it->second.end()) it->second.push_back(r.version);
    };
    for (auto const& r : resources_)
        if (r->builtin) add(*r);
    std::vector<const ApiResource*> rest;
    for (auto const& r : resources_)
        if (!r->builtin) rest.push_back(r.get());
    std::stable_sort(rest.begin(), rest.end(), [](auto const* a, auto const* b) { return a->group < b->group; });
    for (auto const* r : rest) add(*r);
    return out;
}

std::vector<json::object> embeddedTrainerCrds() {
    std::vector<json::object> out;
    for (auto plural : {"trainjobs", "trainingruntimes", "clustertrainingruntimes"}) {
        boost::system::error_code ec;
        json::parse_options opts;
        opts.max_depth = 10000;  // schemas nest far deeper than Boost.JSON's default 32
        auto v = json::parse(embeddedCrdObject(plural), ec, {}, opts);
        if (!ec && v.is_object()) out.push_back(std::move(v.as_object()));
    }
    return out;
}

}  // namespace trainer::core::apiserver
