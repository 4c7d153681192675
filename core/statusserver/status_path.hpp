// The endpoint's path: upstream's StatusUrl and the ServeMux pattern
// "POST /apis/trainer.kubeflow.org/v1alpha1/namespaces/{namespace}/trainjobs/{name}/status"
// (https://github.com/kubeflow/trainer/blob/master/pkg/statusserver/utils.go, server.go).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace trainer::core::statusserver {

// "/apis/trainer.kubeflow.org/v1alpha1/namespaces/<ns>/trainjobs/<name>/status" (not escaped).
std::string statusUrl(std::string_view ns, std::string_view name);

// The TrainJob a status path names.
struct StatusTarget {
    std::string ns;
    std::string name;
};

enum class PathMatch {
    Match,      // the status path; `target` is set
    NoMatch,    // any other path (404)
    BadEscape,  // a malformed %-escape: Go's server refuses the request line (400)
};

struct PathResult {
    PathMatch match = PathMatch::NoMatch;
    StatusTarget target;
};

// Matches a request path (without the query) as Go's ServeMux does: segment by segment, each
// %-unescaped before comparison, so "trainer%2Ekubeflow.org" matches and "a%2Fb" is the one
// namespace "a/b". Empty, "." and ".." segments and a trailing "/" never match (Go redirects
// non-canonical paths; we answer 404 instead).
PathResult matchStatusPath(std::string_view path);

}  // namespace trainer::core::statusserver
