#include "core/executor/config_sources.hpp"

#include "core/executor/spec_fields.hpp"
#include "core/kube/base64.hpp"

namespace trainer::core::executor {

namespace {

// Copies the string members of `o.<field>` into `out`, base64-decoding them when `base64`.
bool readEntries(const json::object& o, std::string_view field, bool base64, std::map<std::string, std::string>& out,
                 std::string& error) {
    const json::value* data = o.if_contains(field);
    if (!data || data->is_null()) return true;
    if (!data->is_object()) {
        error = invalidValue(field, *data, "must be an object");
        return false;
    }
    for (auto const& kv : data->as_object()) {
        std::string path = std::string(field) + "[" + std::string(kv.key()) + "]";
        if (!kv.value().is_string()) {
            error = invalidValue(path, kv.value(), "must be a string");
            return false;
        }
        std::string text(kv.value().as_string()), decoded, why;
        if (base64 && !kube::decodeBase64(text, decoded, why)) {
            error = invalidValue(path, kv.value(), why);
            return false;
        }
        out[std::string(kv.key())] = base64 ? decoded : text;
    }
    return true;
}

}  // namespace

std::string_view resourceName(SourceKind kind) { return kind == SourceKind::ConfigMap ? "configmap" : "secret"; }
std::string_view kindName(SourceKind kind) { return kind == SourceKind::ConfigMap ? "ConfigMap" : "Secret"; }

SourceData readSource(const ClusterReader& cluster, SourceKind kind, const std::string& ns, const std::string& name) {
    SourceData out;
    ObjectKey key{"v1", std::string(kindName(kind)), ns, name};
    auto object = cluster.get(key);
    if (object.failed()) {  // an error, never "not found" (an optional source would be skipped)
        out.error = readFailureMessage(key, object.message);
        return out;
    }
    if (object.notFound()) {
        out.notFound = true;
        out.error = std::string(resourceName(kind)) + " \"" + name + "\" not found";
        return out;
    }
    std::map<std::string, std::string> entries;
    bool ok = kind == SourceKind::ConfigMap
                  ? readEntries(object.object, "data", false, entries, out.error) &&
                        readEntries(object.object, "binaryData", true, entries, out.error)
                  : readEntries(object.object, "data", true, entries, out.error) &&
                        readEntries(object.object, "stringData", false, entries, out.error);
    if (!ok) out.error = std::string(kindName(kind)) + " " + ns + "/" + name + ": " + out.error;
    else out.entries = std::move(entries);
    return out;
}

const SourceData& SourceCache::get(SourceKind kind, const std::string& name) {
    auto key = std::make_pair(kind, name);
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, readSource(cluster_, kind, ns_, name)).first;
    return it->second;
}

}  // namespace trainer::core::executor
