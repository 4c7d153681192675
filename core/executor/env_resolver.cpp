#include "core/executor/env_resolver.hpp"

#include "core/executor/config_sources.hpp"
#include "core/executor/downward_api.hpp"
#include "core/executor/var_expansion.hpp"

#include <map>

namespace trainer::core::executor {

namespace {

// k8s.io/apimachinery/pkg/util/validation IsRelaxedEnvVarName: printable ASCII other than '='.
bool isEnvVarName(std::string_view n) {
    if (n.empty()) return false;
    for (char c : n)
        if (c < 32 || c > 126 || c == '=') return false;
    return true;
}

// Variables in first-definition order; a redefinition replaces the value in place.
class EnvList {
public:
    void set(const std::string& name, std::string value) {
        auto [it, added] = index_.emplace(name, vars_.size());
        if (added) vars_.push_back({name, std::move(value)});
        else vars_[it->second].value = std::move(value);
    }
    std::optional<std::string> get(std::string_view name) const {
        auto it = index_.find(name);
        return it == index_.end() ? std::nullopt : std::optional(vars_[it->second].value);
    }
    std::vector<EnvVar> take() { return std::move(vars_); }

private:
    std::vector<EnvVar> vars_;
    std::map<std::string, size_t, std::less<>> index_;
};

struct EnvContext {
    const json::object& pod;
    const json::object& container;
    const PodRuntimeFacts& facts;
    SourceCache sources;
    std::string error;
    EnvList env;
};

// configMapKeyRef / secretKeyRef; `skip` when an optional object or key is missing.
std::optional<std::string> keyRefValue(EnvContext& ctx, const FieldReader& ref, SourceKind kind, bool& skip) {
    auto name = ref.string("name");
    auto key = ref.string("key");
    bool optional = ref.boolean("optional").value_or(false);
    if (!ref.ok()) return std::nullopt;
    if (!key) return ref.fail(requiredValue(ref.path("key"))), std::nullopt;
    const SourceData& data = ctx.sources.get(kind, name.value_or(""));
    if (!data.entries) {
        if (data.notFound && optional) skip = true;
        else ref.fail(data.error);
        return std::nullopt;
    }
    auto it = data.entries->find(*key);
    if (it != data.entries->end()) return it->second;
    if (optional) skip = true;
    else ref.fail("couldn't find key " + *key + " in " + std::string(kindName(kind)) + " " + ctx.sources.ns() + "/" +
                  name.value_or(""));
    return std::nullopt;
}

std::optional<std::string> valueFromValue(EnvContext& ctx, const FieldReader& from, bool& skip) {
    if (from.object("fieldRef")) {
        FieldReader ref = from.child("fieldRef");
        auto fieldPath = ref.string("fieldPath");
        auto apiVersion = ref.string("apiVersion");
        if (!ref.ok()) return std::nullopt;
        if (!fieldPath) return ref.fail(requiredValue(ref.path("fieldPath"))), std::nullopt;
        return podFieldValue(ctx.pod, apiVersion.value_or("v1"), *fieldPath, ctx.facts, true, ctx.error);
    }
    if (from.object("resourceFieldRef"))
        return resourceFieldValue(ctx.pod, &ctx.container, from.child("resourceFieldRef"), ctx.facts);
    if (from.object("configMapKeyRef")) return keyRefValue(ctx, from.child("configMapKeyRef"), SourceKind::ConfigMap, skip);
    if (from.object("secretKeyRef")) return keyRefValue(ctx, from.child("secretKeyRef"), SourceKind::Secret, skip);
    if (from.ok())
        from.fail(invalidValue(from.path(), from.raw(),
                               "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"));
    return std::nullopt;
}

void addEnv(EnvContext& ctx, const json::object& entry, const std::string& path) {
    FieldReader r(entry, path, ctx.error);
    auto name = r.string("name");
    auto value = r.string("value");
    const json::object* from = r.object("valueFrom");
    if (!r.ok()) return;
    if (!name) return r.fail(requiredValue(r.path("name")));
    if (!isEnvVarName(*name))
        return r.fail(invalidValue(r.path("name"), json::value(*name),
                                   "a valid environment variable name must consist only of printable ASCII "
                                   "characters other than '='"));
    std::string result;
    if (value && !value->empty()) {
        result = expandVars(*value, [&](std::string_view n) { return ctx.env.get(n); });
    } else if (from) {
        bool skip = false;
        auto v = valueFromValue(ctx, r.child("valueFrom"), skip);
        if (skip || !v) return;
        result = std::move(*v);
    }
    ctx.env.set(*name, std::move(result));
}

void addEnvFrom(EnvContext& ctx, const json::object& entry, const std::string& path) {
    FieldReader r(entry, path, ctx.error);
    std::string prefix = r.string("prefix").value_or("");
    bool configMap = r.object("configMapRef") != nullptr;
    bool secret = r.object("secretRef") != nullptr;
    if (!r.ok()) return;
    if (!configMap && !secret)
        return r.fail(invalidValue(path, entry, "must specify one of: `configMapRef` or `secretRef`"));
    FieldReader ref = r.child(configMap ? "configMapRef" : "secretRef");
    auto name = ref.string("name");
    bool optional = ref.boolean("optional").value_or(false);
    if (!ref.ok()) return;
    const SourceData& data = ctx.sources.get(configMap ? SourceKind::ConfigMap : SourceKind::Secret, name.value_or(""));
    if (!data.entries) {
        if (!(data.notFound && optional)) ref.fail(data.error);
        return;
    }
    for (auto const& [key, value] : *data.entries)
        if (isEnvVarName(prefix + key)) ctx.env.set(prefix + key, value);
}

void addEach(EnvContext& ctx, const json::array* list, const std::string& path,
             void (*add)(EnvContext&, const json::object&, const std::string&)) {
    for (size_t i = 0; list && i < list->size() && ctx.error.empty(); ++i)
        if (const json::object* e = elementObject(*list, i, path, ctx.error)) add(ctx, *e, indexPath(path, i));
}

}  // namespace

ResolvedEnv resolveEnv(const json::object& pod, const json::object& container, const ClusterReader& cluster,
                       const PodRuntimeFacts& facts) {
    EnvContext ctx{pod, container, facts, SourceCache(cluster, podNamespace(pod)), {}, {}};
    FieldReader c(container, containerFieldPath(pod, container), ctx.error);
    const json::array* envFrom = c.array("envFrom");
    const json::array* env = c.array("env");
    addEach(ctx, envFrom, c.path("envFrom"), addEnvFrom);
    addEach(ctx, env, c.path("env"), addEnv);
    ResolvedEnv out;
    out.env = ctx.env.take();
    if (!ctx.error.empty()) out.problem = configProblem(ctx.error);
    return out;
}

}  // namespace trainer::core::executor
