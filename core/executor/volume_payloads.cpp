#include "core/executor/volume_payloads.hpp"

#include "core/executor/downward_api.hpp"

namespace trainer::core::executor {

namespace {

constexpr unsigned kDefaultMode = 0644;

std::optional<unsigned> readMode(const FieldReader& r, std::string_view key, unsigned fallback) {
    auto mode = r.integer(key);
    if (!r.ok()) return std::nullopt;
    if (!mode) return fallback;
    if (*mode < 0 || *mode > 0777) {
        r.fail(invalidValue(r.path(key), json::value(*mode), "must be a number between 0 and 0777 (octal), both inclusive"));
        return std::nullopt;
    }
    return unsigned(*mode);
}

// An item's target path, checked as the atomic writer checks it.
std::optional<std::string> itemPath(const FieldReader& item) {
    auto path = item.string("path");
    if (!item.ok()) return std::nullopt;
    if (!path) return item.fail(requiredValue(item.path("path"))), std::nullopt;
    if (auto error = validatePayloadPath(*path); !error.empty())
        return item.fail(invalidValue(item.path("path"), json::value(*path), error)), std::nullopt;
    return path;
}

std::string missingKeyMessage(SourceKind kind, const std::string& key) {
    return kind == SourceKind::ConfigMap ? "configmap references non-existent config key: " + key
                                         : "references non-existent secret key: " + key;
}

struct KeyToPath {
    std::string key;
    std::string path;
    unsigned mode;
};

// The items of a configMap/secret source, checked before anything is fetched.
std::vector<KeyToPath> readItems(const FieldReader& source, unsigned defaultMode) {
    std::vector<KeyToPath> out;
    for (auto const& item : source.elements("items")) {
        auto key = item.string("key");
        auto path = itemPath(item);
        auto mode = readMode(item, "mode", defaultMode);
        if (item.ok() && !key) item.fail(requiredValue(item.path("key")));
        if (!item.ok()) break;
        out.push_back({*key, *path, *mode});
    }
    return out;
}

// One ConfigMap or Secret as `source` selects it (name, items, optional).
void addKeyedSource(const FieldReader& source, SourceKind kind, std::string_view nameField, unsigned defaultMode,
                    PayloadContext& ctx, Payload& out) {
    auto name = source.string(nameField);
    bool optional = source.boolean("optional").value_or(false);
    auto items = readItems(source, defaultMode);
    if (!source.ok()) return;
    const SourceData& data = ctx.sources.get(kind, name.value_or(""));
    if (!data.entries && !(data.notFound && optional)) return source.fail(data.error);
    static const std::map<std::string, std::string> none;
    const auto& entries = data.entries ? *data.entries : none;
    if (items.empty())
        for (auto const& [key, value] : entries) out[key] = {value, defaultMode};
    for (auto const& item : items) {
        auto it = entries.find(item.key);
        if (it != entries.end()) out[item.path] = {it->second, item.mode};
        else if (!optional) return source.fail(missingKeyMessage(kind, item.key));
    }
}

std::optional<std::string> downwardItemValue(const FieldReader& item, PayloadContext& ctx) {
    if (item.object("fieldRef")) {
        FieldReader ref = item.child("fieldRef");
        auto fieldPath = ref.string("fieldPath");
        if (!ref.ok()) return std::nullopt;
        if (!fieldPath) return ref.fail(requiredValue(ref.path("fieldPath"))), std::nullopt;
        std::string error;
        auto v = podFieldValue(ctx.pod, "v1", *fieldPath, ctx.facts, false, error);
        if (!v) item.fail(error);
        return v;
    }
    if (item.object("resourceFieldRef")) return resourceFieldValue(ctx.pod, nullptr, item.child("resourceFieldRef"), ctx.facts);
    if (item.ok()) item.fail(invalidValue(item.path(), item.raw(), "must specify one of: `fieldRef` or `resourceFieldRef`"));
    return std::nullopt;
}

void addDownwardItems(const FieldReader& source, unsigned defaultMode, PayloadContext& ctx, Payload& out) {
    for (auto const& item : source.elements("items")) {
        auto path = itemPath(item);
        auto mode = readMode(item, "mode", defaultMode);
        if (!item.ok()) return;
        auto value = downwardItemValue(item, ctx);
        if (!value) return;
        out[*path] = {*value, *mode};
    }
}

constexpr int64_t kDefaultTokenSeconds = 3600;
constexpr int64_t kMinTokenSeconds = 600;
constexpr int64_t kMaxTokenSeconds = int64_t(1) << 32;

std::string metadataString(const json::object& pod, std::string_view key) {
    auto* md = pod.if_contains("metadata");
    auto* v = md && md->is_object() ? md->get_object().if_contains(key) : nullptr;
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// spec.serviceAccountName, else the deprecated spec.serviceAccount, else "default" (what the
// ServiceAccount admission plugin fills in).
std::string serviceAccountOf(const json::object& pod) {
    auto* spec = pod.if_contains("spec");
    for (auto key : {"serviceAccountName", "serviceAccount"}) {
        auto* v = spec && spec->is_object() ? spec->get_object().if_contains(key) : nullptr;
        if (v && v->is_string() && !v->get_string().empty()) return std::string(v->get_string());
    }
    return "default";
}

// The expirationSeconds of a serviceAccountToken projection, checked as the API server does.
std::optional<int64_t> tokenSeconds(const FieldReader& source) {
    auto seconds = source.integer("expirationSeconds");
    if (!source.ok()) return std::nullopt;
    int64_t s = seconds.value_or(kDefaultTokenSeconds);
    const char* detail = s < kMinTokenSeconds   ? "may not specify a duration less than 10 minutes"
                         : s > kMaxTokenSeconds ? "may not specify a duration larger than 2^32 seconds"
                                                : nullptr;
    if (detail) return source.fail(invalidValue(source.path("expirationSeconds"), json::value(s), detail)), std::nullopt;
    return s;
}

void addServiceAccountToken(const FieldReader& source, unsigned mode, PayloadContext& ctx, Payload& out) {
    auto audience = source.string("audience");
    auto seconds = tokenSeconds(source);
    auto path = itemPath(source);
    if (!source.ok()) return;
    if (!ctx.tokens)
        return source.fail(source.path() +
                           ": the local executor cannot mint service account tokens: it was started without a token issuer");
    auth::TokenBinding binding;
    binding.ns = podNamespace(ctx.pod);
    binding.serviceAccount = serviceAccountOf(ctx.pod);
    binding.podName = metadataString(ctx.pod, "name");
    binding.podUid = metadataString(ctx.pod, "uid");
    if (audience && !audience->empty()) binding.audiences = {*audience};
    binding.expirationSeconds = *seconds;
    auto token = ctx.tokens->token(binding);
    if (!token.error.empty()) return source.fail(source.path() + ": cannot mint the service account token: " + token.error);
    out[*path] = {token.token, mode};
}

}  // namespace

void addConfigMapVolume(const FieldReader& source, PayloadContext& ctx, Payload& out) {
    if (auto mode = readMode(source, "defaultMode", kDefaultMode))
        addKeyedSource(source, SourceKind::ConfigMap, "name", *mode, ctx, out);
}

void addSecretVolume(const FieldReader& source, PayloadContext& ctx, Payload& out) {
    if (auto mode = readMode(source, "defaultMode", kDefaultMode))
        addKeyedSource(source, SourceKind::Secret, "secretName", *mode, ctx, out);
}

void addDownwardApiVolume(const FieldReader& source, PayloadContext& ctx, Payload& out) {
    if (auto mode = readMode(source, "defaultMode", kDefaultMode)) addDownwardItems(source, *mode, ctx, out);
}

void addProjectedVolume(const FieldReader& source, PayloadContext& ctx, Payload& out) {
    auto mode = readMode(source, "defaultMode", kDefaultMode);
    for (auto const& s : source.elements("sources")) {
        if (!s.ok() || !mode) return;
        if (s.object("configMap")) addKeyedSource(s.child("configMap"), SourceKind::ConfigMap, "name", *mode, ctx, out);
        else if (s.object("secret")) addKeyedSource(s.child("secret"), SourceKind::Secret, "name", *mode, ctx, out);
        else if (s.object("downwardAPI")) addDownwardItems(s.child("downwardAPI"), *mode, ctx, out);
        else if (s.object("serviceAccountToken")) addServiceAccountToken(s.child("serviceAccountToken"), *mode, ctx, out);
        else if (s.ok())
            s.fail(invalidValue(s.path(), s.raw(),
                                "the local executor projects configMap, secret, downwardAPI and serviceAccountToken "
                                "sources"));
    }
}

}  // namespace trainer::core::executor
