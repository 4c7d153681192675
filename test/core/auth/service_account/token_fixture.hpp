// Shared helpers of the service-account token tests: an issuer over a temporary key directory,
// a fake clock, JWT parts and signing arbitrary content with the issuer's own key.
#pragma once

#include "core/auth/service_account_tokens.hpp"
#include "core/auth/signing_key_file.hpp"
#include "core/auth/token_authorizer.hpp"
#include "core/controller/clock.hpp"
#include "test/support/process.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

namespace token_test {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace trainer::core;
using trainer::test::TempDir;

inline auth::TokenBinding binding(std::string ns = "team", std::string job = "job") {
    auth::TokenBinding b;
    b.ns = ns;
    b.serviceAccount = "trainer";
    b.podName = job + "-node-0-0-abcde";
    b.podUid = "0b5e7a3c-uid";
    b.audiences = {auth::tokenAudience(ns, job)};
    return b;
}

// The three parts of a compact JWS.
inline std::vector<std::string> parts(const std::string& token) {
    std::vector<std::string> out(1);
    for (char c : token) {
        if (c == '.') out.emplace_back();
        else out.back() += c;
    }
    return out;
}

inline json::object decodePart(const std::string& part) {
    auto text = auth::base64UrlDecode(part);
    BOOST_REQUIRE_MESSAGE(text, "not base64url: " + part);
    return json::parse(*text).as_object();
}

struct IssuerFixture {
    TempDir dir;
    controller::FakeClock clock;
    std::unique_ptr<auth::ServiceAccountTokenIssuer> issuer;

    IssuerFixture() {
        std::string error;
        issuer = auth::ServiceAccountTokenIssuer::open(keyDir(), error);
        BOOST_REQUIRE_MESSAGE(issuer, "open: " + error);
    }
    fs::path keyDir() const { return dir.path / "keys"; }

    std::string mint(const auth::TokenBinding& b) const {
        auto r = issuer->mint(b, clock.now());
        BOOST_REQUIRE_MESSAGE(r.ok(), "mint: " + r.error);
        return r.token;
    }

    // header.payload signed with the issuer's key, whatever the two texts hold.
    std::string signRaw(const std::string& header, const std::string& payload) const {
        std::string error;
        auto key = auth::loadOrCreateSigningKey(keyDir(), error);
        BOOST_REQUIRE_MESSAGE(key, error);
        std::string input = auth::base64UrlEncode(header) + "." + auth::base64UrlEncode(payload);
        return input + "." + auth::base64UrlEncode(key->sign(input));
    }
    std::string signClaims(const json::object& claims) const {
        return signRaw(json::serialize(json::object{{"alg", "ES256"}, {"kid", issuer->keyId()}}), json::serialize(claims));
    }
};

}  // namespace token_test
