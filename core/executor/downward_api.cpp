#include "core/executor/downward_api.hpp"


#include <array>
#include <map>

namespace trainer::core::executor {

namespace {

const json::object* member(const json::object& o, std::string_view key) {
    const json::value* v = o.if_contains(key);
    return v ? v->if_object() : nullptr;
}

std::string memberString(const json::object* o, std::string_view key) {
    const json::value* v = o ? o->if_contains(key) : nullptr;
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// metadata.labels or metadata.annotations as a sorted map; error when not a map of strings.
std::optional<std::map<std::string, std::string>> metadataMap(const json::object& pod, std::string_view which,
                                                              std::string& error) {
    std::map<std::string, std::string> out;
    const json::object* meta = member(pod, "metadata");
    const json::value* v = meta ? meta->if_contains(which) : nullptr;
    if (!v || v->is_null()) return out;
    std::string path = "metadata." + std::string(which);
    if (!v->is_object()) return error = invalidValue(path, *v, "must be an object"), std::nullopt;
    for (auto const& kv : v->as_object()) {
        if (!kv.value().is_string())
            return error = invalidValue(path + "[" + std::string(kv.key()) + "]", kv.value(), "must be a string"),
                   std::nullopt;
        out[std::string(kv.key())] = std::string(kv.value().as_string());
    }
    return out;
}

std::string formatMap(const std::map<std::string, std::string>& m) {
    std::string out;
    for (auto const& [k, v] : m) out += (out.empty() ? "" : "\n") + k + "=" + goQuote(v);
    return out;
}

// "metadata.labels['k']" -> {"metadata.labels", "k"} (pkg/fieldpath SplitMaybeSubscriptedPath).
std::optional<std::pair<std::string, std::string>> splitSubscript(std::string_view path) {
    if (!path.ends_with("']")) return std::nullopt;
    std::string_view s = path.substr(0, path.size() - 2);
    size_t open = s.find("['");
    if (open == std::string_view::npos || open == 0) return std::nullopt;
    return std::make_pair(std::string(s.substr(0, open)), std::string(s.substr(open + 2)));
}

std::optional<std::string> metadataValue(const json::object& pod, std::string_view path, std::string& error) {
    if (auto sub = splitSubscript(path)) {
        if (sub->first != "metadata.annotations" && sub->first != "metadata.labels")
            return error = "fieldPath \"" + std::string(path) + "\" does not support subscript", std::nullopt;
        auto m = metadataMap(pod, sub->first.substr(9), error);
        if (!m) return std::nullopt;
        auto it = m->find(sub->second);
        return it == m->end() ? std::string() : it->second;
    }
    if (path == "metadata.annotations" || path == "metadata.labels") {
        auto m = metadataMap(pod, path.substr(9), error);
        return m ? std::optional(formatMap(*m)) : std::nullopt;
    }
    const json::object* meta = member(pod, "metadata");
    if (path == "metadata.name") return memberString(meta, "name");
    if (path == "metadata.namespace") return memberString(meta, "namespace");
    if (path == "metadata.uid") return memberString(meta, "uid");
    return error = "unsupported fieldPath: " + std::string(path), std::nullopt;
}

std::optional<std::string> runtimeValue(const json::object& pod, std::string_view path, const PodRuntimeFacts& facts) {
    const json::object* spec = member(pod, "spec");
    std::string podIPs;
    for (auto const& ip : facts.podIPs) podIPs += (podIPs.empty() ? "" : ",") + ip;
    if (podIPs.empty()) podIPs = facts.podIP;
    if (path == "spec.nodeName") {
        std::string node = memberString(spec, "nodeName");
        return node.empty() ? facts.nodeName : node;
    }
    if (path == "spec.serviceAccountName") return memberString(spec, "serviceAccountName");
    if (path == "status.hostIP" || path == "status.hostIPs") return facts.hostIP;
    if (path == "status.podIP") return facts.podIPs.empty() ? facts.podIP : facts.podIPs.front();
    if (path == "status.podIPs") return podIPs;
    return std::nullopt;
}

// pkg/apis/core/pods/helpers.go ConvertDownwardAPIFieldLabel: the label the kubelet evaluates.
std::optional<std::string> convertFieldLabel(std::string_view apiVersion, std::string_view label, std::string& error) {
    if (!apiVersion.empty() && apiVersion != "v1")
        return error = "unsupported pod version: " + std::string(apiVersion), std::nullopt;
    if (auto sub = splitSubscript(label)) {
        if (sub->first == "metadata.annotations" || sub->first == "metadata.labels") return std::string(label);
        return error = "field label does not support subscript: " + std::string(label), std::nullopt;
    }
    static const std::array<std::string_view, 14> known = {
        "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid",
        "spec.nodeName", "spec.restartPolicy", "spec.serviceAccountName", "spec.schedulerName", "status.phase",
        "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"};
    for (auto k : known)
        if (k == label) return std::string(label);
    if (label == "spec.host") return std::string("spec.nodeName");
    return error = "field label not supported: " + std::string(label), std::nullopt;
}

}  // namespace

std::string goQuote(std::string_view s) {
    static const char* hex = "0123456789abcdef";
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\a': out += "\\a"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\v': out += "\\v"; break;
            default:
                if (c < 0x20 || c == 0x7f) out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
                else out += char(c);
        }
    }
    return out + "\"";
}

std::optional<std::string> podFieldValue(const json::object& pod, std::string_view apiVersion, std::string_view fieldPath,
                                         const PodRuntimeFacts& facts, bool runtimeFields, std::string& error) {
    std::string label(fieldPath);
    if (runtimeFields) {
        auto converted = convertFieldLabel(apiVersion, fieldPath, error);
        if (!converted) return std::nullopt;
        label = *converted;
        if (auto v = runtimeValue(pod, label, facts)) return v;
    }
    return metadataValue(pod, label, error);
}

}  // namespace trainer::core::executor
