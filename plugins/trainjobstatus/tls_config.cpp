#include "tls_config.hpp"

#include "trainjobstatus.hpp"

#include <cstdint>

namespace trainer::plugins::trainjobstatus {

namespace {

int base64Value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

}  // namespace

bool decodeBase64(std::string_view in, std::string& out) {
    std::string clean;
    clean.reserve(in.size());
    for (char c : in)
        if (c != '\r' && c != '\n') clean += c;
    out.clear();
    if (clean.size() % 4 != 0) return false;
    for (size_t i = 0; i < clean.size(); i += 4) {
        const bool last = i + 4 == clean.size();
        int v[4];
        int pad = 0;
        for (int k = 0; k < 4; ++k) {
            char c = clean[i + static_cast<size_t>(k)];
            if (c == '=' && last && k >= 2) {
                ++pad;
                v[k] = 0;
                continue;
            }
            if (pad > 0 || (v[k] = base64Value(c)) < 0) return false;
        }
        uint32_t bits = (uint32_t(v[0]) << 18) | (uint32_t(v[1]) << 12) | (uint32_t(v[2]) << 6) | uint32_t(v[3]);
        out += static_cast<char>((bits >> 16) & 0xff);
        if (pad < 2) out += static_cast<char>((bits >> 8) & 0xff);
        if (pad < 1) out += static_cast<char>(bits & 0xff);
    }
    return true;
}

std::optional<std::string> caCertFromSecret(const json::object* secret, std::string_view ns, std::string_view name,
                                            std::string& error) {
    if (!secret) {
        error = "failed to look up status server tls secret: secrets \"" + std::string(name) + "\" not found";
        return std::nullopt;
    }
    const std::string where = std::string(ns) + "/" + std::string(name);
    std::string value;
    if (const json::object* sd = sdk::getObject(*secret, "stringData"); sd && sdk::getString(*sd, kCaCertKey)) {
        value = std::string(*sdk::getString(*sd, kCaCertKey));
    } else if (const json::object* data = sdk::getObject(*secret, "data")) {
        if (auto encoded = sdk::getString(*data, kCaCertKey); encoded && !decodeBase64(*encoded, value)) {
            error = "failed to decode status server ca.crt in tls secret " + where + ": data.ca.crt is not valid base64";
            return std::nullopt;
        }
    }
    if (value.empty()) {
        error = "failed to find status server ca.crt in tls secret " + where;
        return std::nullopt;
    }
    return value;
}

json::object tlsConfigMap(const sdk::Info& info, std::string_view caCert) {
    return json::object{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", json::object{{"name", tlsConfigMapName(info.name())},
                                                  {"namespace", info.ns()},
                                                  {"ownerReferences", json::array{sdk::controllerRef(info)}}}},
                        {"data", json::object{{kCaCertKey, caCert}}}};
}

}  // namespace trainer::plugins::trainjobstatus
