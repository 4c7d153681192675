// A kubeconfig's `server` URL taken apart: what the client dials and the path prefix it keeps.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace trainer::core::kube {

struct ServerUrl {
    bool tls = true;          // https (the default when the URL has no scheme, as client-go's DefaultServerURL)
    std::string host;         // without brackets: "127.0.0.1", "::1", "api.example.com"
    std::string port;         // "6443"; 443 / 80 when the URL names none
    std::string hostHeader;   // the Host header: host[:port] as written, IPv6 bracketed
    std::string pathPrefix;   // "" or "/prefix" (no trailing slash), put before every request path
    std::string text() const; // "https://host:port/prefix"
};

// Parses "https://host[:port][/prefix]", "http://...", or "host[:port]" (https). No user info,
// query or fragment. nullopt with `error` set ("invalid URL \"x\": ...") when malformed.
std::optional<ServerUrl> parseServerUrl(std::string_view text, std::string& error);

}  // namespace trainer::core::kube
