#include "core/apiserver/request_info.hpp"

#include <vector>

namespace trainer::core::apiserver {

namespace {

std::vector<std::string> splitPath(std::string_view path) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < path.size()) {
        while (i < path.size() && path[i] == '/') ++i;
        size_t j = path.find('/', i);
        if (j == std::string_view::npos) j = path.size();
        if (j > i) out.push_back(percentDecode(path.substr(i, j - i)));
        i = j;
    }
    return out;
}

int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool truthy(const std::map<std::string, std::string>& q, const char* key) {
    auto it = q.find(key);
    return it != q.end() && parseBool(it->second).value_or(false);
}

}  // namespace

std::optional<bool> parseBool(std::string_view s) {
    for (auto t : {"1", "t", "T", "TRUE", "true", "True"})
        if (s == t) return true;
    for (auto f : {"0", "f", "F", "FALSE", "false", "False"})
        if (s == f) return false;
    return std::nullopt;
}

std::string percentDecode(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size()) {
            int hi = hexValue(s[i + 1]), lo = hexValue(s[i + 2]);
            if (hi >= 0 && lo >= 0) {
                out += static_cast<char>(hi * 16 + lo);
                i += 2;
                continue;
            }
        }
        out += s[i];
    }
    return out;
}

std::map<std::string, std::string> parseQuery(std::string_view query) {
    std::map<std::string, std::string> out;
    size_t i = 0;
    while (i <= query.size() && !query.empty()) {
        size_t amp = query.find('&', i);
        if (amp == std::string_view::npos) amp = query.size();
        auto pair = query.substr(i, amp - i);
        if (!pair.empty()) {
            auto eq = pair.find('=');
            std::string k(pair.substr(0, eq)), v(eq == std::string_view::npos ? "" : pair.substr(eq + 1));
            for (auto& c : k) c = c == '+' ? ' ' : c;
            for (auto& c : v) c = c == '+' ? ' ' : c;
            out[percentDecode(k)] = percentDecode(v);
        }
        if (amp == query.size()) break;
        i = amp + 1;
    }
    return out;
}

std::optional<RequestInfo> parseRequestInfo(std::string_view method, std::string_view path,
                                            const std::map<std::string, std::string>& query) {
    auto parts = splitPath(path);
    RequestInfo info;
    size_t at = 0;
    if (parts.empty()) return std::nullopt;
    if (parts[0] == "api") {
        at = 1;
    } else if (parts[0] == "apis") {
        if (parts.size() < 2) return info;  // /apis
        info.group = parts[1];
        at = 2;
    } else {
        return std::nullopt;
    }
    if (parts.size() <= at) return info;  // /api or /apis/<group>
    info.version = parts[at++];
    std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(at), parts.end());
    if (rest.empty()) return info;  // /api/v1, /apis/<group>/<version>
    info.resourceRequest = true;
    if (rest[0] == "namespaces" && rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize") {
        info.ns = rest[1];
        info.hasNamespace = true;
        rest.erase(rest.begin(), rest.begin() + 2);
    }
    info.resource = rest[0];
    if (rest.size() >= 2) info.name = rest[1];
    if (rest.size() >= 3) info.subresource = rest[2];
    bool named = !info.name.empty();
    if (method == "GET" || method == "HEAD") info.verb = truthy(query, "watch") ? "watch" : named ? "get" : "list";
    else if (method == "POST") info.verb = "create";
    else if (method == "PUT") info.verb = "update";
    else if (method == "PATCH") info.verb = "patch";
    else if (method == "DELETE") info.verb = named ? "delete" : "deletecollection";
    else info.verb = "";
    return info;
}

}  // namespace trainer::core::apiserver
