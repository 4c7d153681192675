#include "core/auth/service_account_tokens.hpp"

#include "core/auth/signing_key_file.hpp"
#include "core/store/store.hpp"

#include <algorithm>

namespace trainer::core::auth {

namespace {

constexpr std::string_view kAlgorithm = "ES256";

// `text` (decoded from base64url) as a JSON object; nullopt and `error` naming `what` otherwise.
std::optional<json::object> jsonPart(std::string_view encoded, std::string_view what, std::string& error) {
    auto text = base64UrlDecode(encoded);
    if (!text) return error = std::string(what) + " is not base64url", std::nullopt;
    try {
        boost::system::error_code ec;
        json::value v = json::parse(*text, ec);
        if (ec || !v.is_object()) return error = std::string(what) + " is not a JSON object", std::nullopt;
        return std::move(v.get_object());
    } catch (const std::exception& e) {
        return error = std::string(what) + " cannot be read: " + e.what(), std::nullopt;
    }
}

std::string checkHeader(const json::object& header, const std::string& keyId) {
    const json::value* alg = header.if_contains("alg");
    if (!alg || !alg->is_string()) return "the header has no alg";
    if (alg->get_string() != kAlgorithm)
        return "the header's alg \"" + std::string(alg->get_string()) + "\" is not " + std::string(kAlgorithm);
    const json::value* kid = header.if_contains("kid");
    if (kid && (!kid->is_string() || kid->get_string() != keyId)) return "the header's kid is not this issuer's key";
    if (header.contains("crit")) return "the header has critical extensions";
    return "";
}

std::string checkTimes(const TokenClaims& c, TimePoint now) {
    using Leeway = std::chrono::seconds;
    const Leeway leeway = ServiceAccountTokenIssuer::kLeeway;
    if (now > c.expiresAt + leeway) return "the token has expired";
    if (c.notBefore != TimePoint{} && now + leeway < c.notBefore) return "the token is not valid yet (nbf)";
    if (c.issuedAt != TimePoint{} && now + leeway < c.issuedAt) return "the token was issued in the future (iat)";
    return "";
}

}  // namespace

std::unique_ptr<ServiceAccountTokenIssuer> ServiceAccountTokenIssuer::open(const std::filesystem::path& keyDir,
                                                                           std::string& error) {
    auto key = loadOrCreateSigningKey(keyDir, error);
    if (!key) return nullptr;
    return std::make_unique<ServiceAccountTokenIssuer>(std::move(*key));
}

MintResult ServiceAccountTokenIssuer::mint(const TokenBinding& binding, TimePoint now) const {
    MintResult out;
    if (out.error = validateBinding(binding); !out.error.empty()) return out;
    json::object header{{"alg", kAlgorithm}, {"kid", key_.keyId()}};
    json::object claims = buildClaims(binding, now, newUuid());
    std::string input = base64UrlEncode(json::serialize(header)) + "." + base64UrlEncode(json::serialize(claims));
    std::string signature = key_.sign(input);
    if (signature.empty()) return out.error = "signing the token failed", out;
    out.token = input + "." + base64UrlEncode(signature);
    out.issuedAt = TimePoint(std::chrono::seconds(claims["iat"].as_int64()));
    out.expiresAt = TimePoint(std::chrono::seconds(claims["exp"].as_int64()));
    return out;
}

std::optional<json::object> ServiceAccountTokenIssuer::verifiedPayload(std::string_view token, std::string& error) const {
    if (token.size() > kMaxTokenBytes) return error = "the token is longer than 16 KiB", std::nullopt;
    if (std::count(token.begin(), token.end(), '.') != 2) return error = "the token is not a JWS of three parts", std::nullopt;
    const size_t a = token.find('.'), b = token.find('.', a + 1);
    std::string_view head = token.substr(0, a), body = token.substr(a + 1, b - a - 1), sig = token.substr(b + 1);
    if (head.empty() || body.empty() || sig.empty()) return error = "the token has an empty part", std::nullopt;
    auto header = jsonPart(head, "the header", error);
    if (!header) return std::nullopt;
    if (error = checkHeader(*header, key_.keyId()); !error.empty()) return std::nullopt;
    auto signature = base64UrlDecode(sig);
    if (!signature) return error = "the signature is not base64url", std::nullopt;
    if (!key_.verify(token.substr(0, b), *signature)) return error = "the signature does not verify", std::nullopt;
    return jsonPart(body, "the payload", error);
}

VerifyResult ServiceAccountTokenIssuer::verify(std::string_view token, std::string_view audience, TimePoint now) const {
    VerifyResult out;
    auto payload = verifiedPayload(token, out.error);
    if (!payload) return out;
    TokenClaims claims;
    if (!parseClaims(*payload, claims, out.error)) return out;
    if (claims.issuer != kServiceAccountIssuer) return out.error = "the token's issuer is \"" + claims.issuer + "\"", out;
    if (out.error = checkTimes(claims, now); !out.error.empty()) return out;
    if (std::find(claims.audiences.begin(), claims.audiences.end(), audience) == claims.audiences.end())
        return out.error = "the token's audience does not include \"" + std::string(audience) + "\"", out;
    out.claims = std::move(claims);
    return out;
}

}  // namespace trainer::core::auth
