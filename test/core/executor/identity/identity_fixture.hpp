// Shared by the identity tests: an issuer over a temporary key directory and JWT claims.
#pragma once

#include "core/auth/service_account_tokens.hpp"
#include "core/auth/token_authorizer.hpp"
#include "core/controller/clock.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

namespace identity_test {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace trainer::core;

inline std::string readText(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The claims (payload) of a compact JWS, unverified.
inline json::object claimsOf(const std::string& token) {
    auto a = token.find('.'), b = token.find('.', a + 1);
    BOOST_REQUIRE(a != std::string::npos && b != std::string::npos);
    auto text = auth::base64UrlDecode(token.substr(a + 1, b - a - 1));
    BOOST_REQUIRE(text);
    return json::parse(*text).as_object();
}

struct IssuerDir {
    fs::path path;
    std::shared_ptr<const auth::ServiceAccountTokenIssuer> issuer;
    IssuerDir() {
        std::string tmpl = (fs::temp_directory_path() / "identity-test-XXXXXX").string();
        BOOST_REQUIRE(::mkdtemp(tmpl.data()));
        path = tmpl;
        std::string error;
        issuer = auth::ServiceAccountTokenIssuer::open(path / "keys", error);
        BOOST_REQUIRE_MESSAGE(issuer, error);
    }
    ~IssuerDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

}  // namespace identity_test
