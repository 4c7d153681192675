// What a REST path and query mean, parsed once: the API server's RequestInfo
// (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go) plus the query parameters it reads.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::core::apiserver {

struct RequestInfo {
    bool resourceRequest = false;  // false: discovery or other non-resource paths
    std::string group;             // "" for /api
    std::string version;
    std::string ns;                // from /namespaces/<ns>/...
    bool hasNamespace = false;
    std::string resource;
    std::string name;
    std::string subresource;
    // The verb: get, list, watch, create, update, patch, delete, deletecollection.
    std::string verb;
};

// Splits the path (percent-decoded segments) and classifies the verb from the method and the
// query's `watch`; nullopt when the path is not an /api or /apis path.
std::optional<RequestInfo> parseRequestInfo(std::string_view method, std::string_view path,
                                            const std::map<std::string, std::string>& query);

// Decodes `a=b&c=%2F` (last value wins; `+` is a space).
std::map<std::string, std::string> parseQuery(std::string_view query);

// A boolean query parameter as Go's strconv.ParseBool reads it ("1", "t", "true", "True" ...);
// nullopt for anything else.
std::optional<bool> parseBool(std::string_view s);

// Percent-decoding; invalid escapes are kept as they are.
std::string percentDecode(std::string_view s);

}  // namespace trainer::core::apiserver
