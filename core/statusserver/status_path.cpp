#include "core/statusserver/status_path.hpp"

#include <array>
#include <vector>

namespace trainer::core::statusserver {

namespace {

constexpr std::string_view kPrefix = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/";

int hexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// %-unescapes one segment; nullopt on a malformed escape.
std::optional<std::string> unescape(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        int hi = i + 1 < s.size() ? hexValue(s[i + 1]) : -1;
        int lo = i + 2 < s.size() ? hexValue(s[i + 2]) : -1;
        if (hi < 0 || lo < 0) return std::nullopt;
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return out;
}

std::vector<std::string_view> split(std::string_view path) {
    std::vector<std::string_view> out;
    std::size_t start = 1;  // after the leading '/'
    for (std::size_t i = 1; i <= path.size(); ++i)
        if (i == path.size() || path[i] == '/') {
            out.push_back(path.substr(start, i - start));
            start = i + 1;
        }
    return out;
}

}  // namespace

std::string statusUrl(std::string_view ns, std::string_view name) {
    std::string out(kPrefix);
    out.append(ns).append("/trainjobs/").append(name).append("/status");
    return out;
}

PathResult matchStatusPath(std::string_view path) {
    PathResult r;
    if (path.empty() || path.front() != '/') return r;
    // "", "apis", "trainer.kubeflow.org", ... : literal segments; empty = the wildcards.
    static const std::array<std::string_view, 7> kPattern{"apis", "trainer.kubeflow.org", "v1alpha1", "namespaces", "",
                                                          "trainjobs", ""};
    auto raw = split(path);
    std::vector<std::string> segments;
    for (auto s : raw) {
        auto u = unescape(s);
        if (!u) {
            r.match = PathMatch::BadEscape;
            return r;
        }
        segments.push_back(std::move(*u));
    }
    if (segments.size() != kPattern.size() + 1 || segments.back() != "status") return r;
    for (std::size_t i = 0; i < kPattern.size(); ++i) {
        const auto& s = segments[i];
        if (s.empty() || s == "." || s == "..") return r;
        if (!kPattern[i].empty() && s != kPattern[i]) return r;
    }
    r.match = PathMatch::Match;
    r.target = StatusTarget{segments[4], segments[6]};
    return r;
}

}  // namespace trainer::core::statusserver
