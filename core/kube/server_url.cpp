#include "core/kube/server_url.hpp"

#include <algorithm>
#include <cctype>

namespace trainer::core::kube {

namespace {

bool validPort(std::string_view p) {
    if (p.empty() || p.size() > 5 || !std::all_of(p.begin(), p.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        return false;
    int v = std::stoi(std::string(p));
    return v > 0 && v <= 65535;
}

// Splits an authority into host (brackets removed) and port; false with the reason when malformed.
bool splitAuthority(std::string_view authority, std::string& host, std::string& port, std::string& why) {
    if (authority.empty()) return why = "missing host", false;
    if (authority.find('@') != std::string_view::npos) return why = "user information is not supported", false;
    std::string_view rest;
    if (authority.front() == '[') {
        auto close = authority.find(']');
        if (close == std::string_view::npos) return why = "missing ']' in host", false;
        host = std::string(authority.substr(1, close - 1));
        rest = authority.substr(close + 1);
        if (host.empty()) return why = "missing host", false;
    } else {
        auto colon = authority.find(':');
        host = std::string(authority.substr(0, colon));
        rest = colon == std::string_view::npos ? std::string_view{} : authority.substr(colon);
        if (host.empty()) return why = "missing host", false;
    }
    if (rest.empty()) return true;
    if (rest.front() != ':' || !validPort(rest.substr(1))) return why = "invalid port \"" + std::string(rest) + "\"", false;
    port = std::string(rest.substr(1));
    return true;
}

}  // namespace

std::string ServerUrl::text() const {
    std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return (tls ? "https://" : "http://") + h + ":" + port + pathPrefix;
}

std::optional<ServerUrl> parseServerUrl(std::string_view text, std::string& error) {
    auto fail = [&](const std::string& why) {
        error = "invalid URL \"" + std::string(text) + "\": " + why;
        return std::nullopt;
    };
    ServerUrl u;
    std::string_view rest = text;
    if (auto scheme = rest.find("://"); scheme != std::string_view::npos) {
        std::string s(rest.substr(0, scheme));
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
        if (s != "https" && s != "http") return fail("unsupported scheme \"" + s + "\"");
        u.tls = s == "https";
        rest = rest.substr(scheme + 3);
    }
    if (rest.find_first_of("?#") != std::string_view::npos) return fail("a query or fragment is not allowed");
    auto slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    std::string why;
    if (!splitAuthority(authority, u.host, u.port, why)) return fail(why);
    u.hostHeader = std::string(authority);
    if (u.port.empty()) u.port = u.tls ? "443" : "80";
    if (slash != std::string_view::npos) {
        u.pathPrefix = std::string(rest.substr(slash));
        while (!u.pathPrefix.empty() && u.pathPrefix.back() == '/') u.pathPrefix.pop_back();
    }
    return u;
}

}  // namespace trainer::core::kube
