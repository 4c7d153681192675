// Minting and verifying: the token's shape (kube-apiserver's bound service-account token), an
// independent verifier and signer (PyJWT under /usr/bin/python3), and every way a token can be
// wrong, each denied with a reason and none crashing.
#include "token_fixture.hpp"

#include <fstream>

using namespace token_test;
using namespace std::chrono_literals;

namespace {

const std::string kAudience = auth::tokenAudience("team", "job");

std::string replacePart(const std::string& token, size_t index, const std::string& part) {
    auto p = parts(token);
    p[index] = part;
    return p[0] + "." + p[1] + "." + p[2];
}

// Runs `script` with /usr/bin/python3 (PyJWT from python3-jwt); stdout, or fails the test.
std::string python(const TempDir& dir, const std::string& script) {
    BOOST_REQUIRE_MESSAGE(fs::exists("/usr/bin/python3"), "the test needs /usr/bin/python3 with python3-jwt");
    std::ofstream(dir.path / "check.py") << script;
    auto r = trainer::test::sh("/usr/bin/python3 " + (dir.path / "check.py").string());
    BOOST_REQUIRE_MESSAGE(r.exit == 0, "python3: " + r.out + r.err);
    return r.out;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(issuer, IssuerFixture)

BOOST_AUTO_TEST_CASE(token_has_the_apiserver_shape_and_round_trips) {
    auto minted = issuer->mint(binding(), clock.now());
    BOOST_REQUIRE_MESSAGE(minted.ok(), minted.error);
    BOOST_TEST((minted.expiresAt - minted.issuedAt == 3600s));
    BOOST_TEST((minted.issuedAt == clock.now()));
    auto p = parts(minted.token);
    BOOST_REQUIRE_EQUAL(p.size(), 3u);
    BOOST_TEST(json::serialize(decodePart(p[0])) == R"({"alg":"ES256","kid":")" + issuer->keyId() + R"("})");
    json::object claims = decodePart(p[1]);
    const std::string jti(claims["jti"].as_string());
    BOOST_TEST(jti.size() == 36u);
    const int64_t now = 1714564800;  // the FakeClock's start
    BOOST_TEST(json::serialize(claims) ==
               R"({"aud":["trainer.kubeflow.org/v1alpha1/namespaces/team/trainjobs/job/status"],"exp":)" +
                   std::to_string(now + 3600) + R"(,"iat":)" + std::to_string(now) +
                   R"(,"iss":"https://kubernetes.default.svc.cluster.local","jti":")" + jti +
                   R"(","kubernetes.io":{"namespace":"team","pod":{"name":"job-node-0-0-abcde","uid":"0b5e7a3c-uid"},)"
                   R"("serviceaccount":{"name":"trainer"}},"nbf":)" + std::to_string(now) +
                   R"(,"sub":"system:serviceaccount:team:trainer"})");
    auto v = issuer->verify(minted.token, kAudience, clock.now());
    BOOST_REQUIRE_MESSAGE(v.ok(), v.error);
    BOOST_TEST(v.claims->ns == "team");
    BOOST_TEST(v.claims->podName == "job-node-0-0-abcde");
    BOOST_TEST(v.claims->podUid == "0b5e7a3c-uid");
    BOOST_TEST(v.claims->serviceAccount == "trainer");
    BOOST_TEST(v.claims->subject == "system:serviceaccount:team:trainer");
    BOOST_TEST(v.claims->id == jti);
    BOOST_TEST((v.claims->expiresAt == minted.expiresAt));
}

BOOST_AUTO_TEST_CASE(defaults_audience_to_the_issuer_and_writes_the_service_account_uid) {
    auto b = binding();
    b.audiences.clear();
    b.serviceAccountUid = "sa-uid";
    b.expirationSeconds = 600;
    auto minted = issuer->mint(b, clock.now());
    BOOST_REQUIRE(minted.ok());
    json::object claims = decodePart(parts(minted.token)[1]);
    BOOST_TEST(json::serialize(claims["aud"]) == R"(["https://kubernetes.default.svc.cluster.local"])");
    BOOST_TEST(json::serialize(claims["kubernetes.io"].at("serviceaccount")) == R"({"name":"trainer","uid":"sa-uid"})");
    BOOST_TEST(issuer->verify(minted.token, std::string(auth::kServiceAccountIssuer), clock.now()).ok());
    BOOST_TEST(!issuer->verify(minted.token, kAudience, clock.now()).ok());
}

BOOST_AUTO_TEST_CASE(bindings_the_apiserver_refuses_are_not_minted) {
    auto check = [&](auth::TokenBinding b, const std::string& want) {
        auto r = issuer->mint(b, clock.now());
        BOOST_TEST(!r.ok());
        BOOST_TEST(r.token.empty());
        BOOST_TEST(r.error == want);
    };
    auto b = binding();
    b.expirationSeconds = 599;
    check(b, "expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes");
    b.expirationSeconds = (1LL << 32) + 1;
    check(b, "expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds");
    b = binding();
    b.ns.clear();
    check(b, "namespace: Required value");
    b = binding();
    b.podUid.clear();
    check(b, "boundObjectRef: Required value: a pod name and uid");
    b = binding();
    b.audiences = {""};
    check(b, "audiences: Invalid value: \"\": an audience may not be empty");
}

BOOST_AUTO_TEST_CASE(pyjwt_verifies_our_token_and_we_verify_pyjwts) {
    // Minted at the real time so PyJWT's own exp/nbf/iat checks run too.
    auto minted = issuer->mint(binding(), std::chrono::system_clock::now());
    BOOST_REQUIRE(minted.ok());
    std::ofstream(dir.path / "pub.pem") << issuer->publicKeyPem();
    std::string out = python(dir, "import jwt\n"
        "pub = open('" + (dir.path / "pub.pem").string() + "').read()\n"
        "c = jwt.decode('" + minted.token + "', pub, algorithms=['ES256'], audience='" + kAudience + "',\n"
        "               issuer='https://kubernetes.default.svc.cluster.local')\n"
        "h = jwt.get_unverified_header('" + minted.token + "')\n"
        "print(h['alg'], h['kid'], c['sub'], c['kubernetes.io']['pod']['name'], c['exp'] - c['iat'])\n");
    BOOST_TEST(out == "ES256 " + issuer->keyId() + " system:serviceaccount:team:trainer job-node-0-0-abcde 3600\n");

    // A token PyJWT signs with our key file verifies here (the signature encoding is the standard one).
    const fs::path keyFile = keyDir() / std::string(auth::kSigningKeyFileName);
    std::string theirs = python(dir, "import jwt, time\n"
        "key = open('" + keyFile.string() + "').read()\n"
        "now = 1714564800\n"
        "claims = {'aud': ['" + kAudience + "'], 'exp': now + 600, 'iat': now, 'nbf': now,\n"
        "          'iss': 'https://kubernetes.default.svc.cluster.local', 'sub': 'system:serviceaccount:team:default',\n"
        "          'kubernetes.io': {'namespace': 'team', 'serviceaccount': {'name': 'default'},\n"
        "                            'pod': {'name': 'p', 'uid': 'u'}}}\n"
        "print(jwt.encode(claims, key, algorithm='ES256', headers={'kid': '" + issuer->keyId() + "'}), end='')\n");
    auto v = issuer->verify(theirs, kAudience, clock.now());
    BOOST_TEST(v.ok(), v.error);
    if (v.ok()) BOOST_TEST(v.claims->podName == "p");
}

BOOST_AUTO_TEST_CASE(tampered_tokens_do_not_verify) {
    const std::string token = mint(binding());
    auto p = parts(token);
    // A flipped signature bit; a payload naming another namespace with the old signature.
    std::string sig = *auth::base64UrlDecode(p[2]);
    sig[5] ^= 0x20;
    auto v = issuer->verify(replacePart(token, 2, auth::base64UrlEncode(sig)), kAudience, clock.now());
    BOOST_TEST(v.error == "the signature does not verify");
    json::object claims = decodePart(p[1]);
    claims["kubernetes.io"].as_object()["namespace"] = "other";
    v = issuer->verify(replacePart(token, 1, auth::base64UrlEncode(json::serialize(claims))), kAudience, clock.now());
    BOOST_TEST(v.error == "the signature does not verify");
    // Another alg, even with the right signature bytes, or none at all.
    for (std::string alg : {"none", "HS256", "RS256", "ES384", "es256"}) {
        std::string header = json::serialize(json::object{{"alg", alg}, {"kid", issuer->keyId()}});
        v = issuer->verify(replacePart(token, 0, auth::base64UrlEncode(header)), kAudience, clock.now());
        BOOST_TEST(v.error == "the header's alg \"" + alg + "\" is not ES256");
    }
    v = issuer->verify(p[0] + "." + p[1] + ".", kAudience, clock.now());
    BOOST_TEST(v.error == "the token has an empty part");
    std::string crit = signRaw(R"({"alg":"ES256","crit":["exp"],"exp":1})", json::serialize(decodePart(p[1])));
    BOOST_TEST(issuer->verify(crit, kAudience, clock.now()).error == "the header has critical extensions");
}

BOOST_AUTO_TEST_CASE(audience_and_issuer_must_match) {
    const std::string token = mint(binding("team", "job"));
    auto v = issuer->verify(token, auth::tokenAudience("team", "other-job"), clock.now());
    BOOST_TEST(v.error == "the token's audience does not include "
                          "\"trainer.kubeflow.org/v1alpha1/namespaces/team/trainjobs/other-job/status\"");
    json::object claims = decodePart(parts(token)[1]);
    claims["aud"] = kAudience;  // a single string is a valid aud too
    BOOST_TEST(issuer->verify(signClaims(claims), kAudience, clock.now()).ok());
    claims["iss"] = "https://evil.example";
    BOOST_TEST(issuer->verify(signClaims(claims), kAudience, clock.now()).error ==
               "the token's issuer is \"https://evil.example\"");
}

BOOST_AUTO_TEST_CASE(expiry_and_not_before_allow_one_minute_of_skew) {
    const std::string token = mint(binding());
    const auto issued = clock.now();
    clock.advance(3600s + 59s);
    BOOST_TEST(issuer->verify(token, kAudience, clock.now()).ok());
    clock.advance(2s);
    BOOST_TEST(issuer->verify(token, kAudience, clock.now()).error == "the token has expired");
    BOOST_TEST(issuer->verify(token, kAudience, issued - 59s).ok());
    BOOST_TEST(issuer->verify(token, kAudience, issued - 61s).error == "the token is not valid yet (nbf)");
    json::object claims = decodePart(parts(token)[1]);
    claims.erase("nbf");
    BOOST_TEST(issuer->verify(signClaims(claims), kAudience, issued - 61s).error ==
               "the token was issued in the future (iat)");
}

BOOST_AUTO_TEST_CASE(malformed_tokens_are_denied_with_a_reason) {
    const std::string good = mint(binding());
    const std::string header = parts(good)[0];
    const std::pair<std::string, std::string> cases[] = {
        {"", "the token is not a JWS of three parts"},
        {"abc", "the token is not a JWS of three parts"},
        {"a.b", "the token is not a JWS of three parts"},
        {good + ".x", "the token is not a JWS of three parts"},
        {std::string(20000, 'a'), "the token is longer than 16 KiB"},
        {"!!!." + parts(good)[1] + "." + parts(good)[2], "the header is not base64url"},
        {"Zm9v." + parts(good)[1] + "." + parts(good)[2], "the header is not a JSON object"},
        {auth::base64UrlEncode("[1]") + ".e30.AA", "the header is not a JSON object"},
        {auth::base64UrlEncode("{\"kid\":1}") + ".e30.AA", "the header has no alg"},
        {header + "." + parts(good)[1] + ".***", "the signature is not base64url"},
        {header + "." + parts(good)[1] + ".AAAA", "the signature does not verify"},
        {signRaw(R"({"alg":"ES256"})", "not json"), "the payload is not a JSON object"},
        {signRaw(R"({"alg":"ES256"})", "[]"), "the payload is not a JSON object"},
        {signRaw(R"({"alg":"ES256"})", std::string(5000, '[') + std::string(5000, ']')), "the payload is not a JSON object"},
        {signRaw(R"({"alg":"ES256"})", "{}"), "claim iss is missing"},
    };
    for (auto const& [token, want] : cases) {
        auto v = issuer->verify(token, kAudience, clock.now());
        BOOST_TEST(!v.ok());
        BOOST_TEST(v.error == want, token.substr(0, 80));
    }
}

BOOST_AUTO_TEST_CASE(malformed_claims_are_denied_naming_the_claim) {
    json::object base = decodePart(parts(mint(binding()))[1]);
    auto with = [&](std::string_view key, json::value v) {
        json::object c = base;
        if (v.is_null()) c.erase(key);
        else c[key] = std::move(v);
        return issuer->verify(signClaims(c), kAudience, clock.now()).error;
    };
    BOOST_TEST(with("exp", nullptr) == "claim exp is missing");
    BOOST_TEST(with("exp", "soon") == "claim exp is not a number");
    BOOST_TEST(with("exp", -1) == "claim exp is out of range");
    BOOST_TEST(with("exp", 1e300) == "claim exp is out of range");
    BOOST_TEST(with("exp", 1714564800.0 + 3600.5) == "");
    BOOST_TEST(with("aud", 7) == "claim aud is neither a string nor an array");
    BOOST_TEST(with("aud", json::array{kAudience, 3}) == "claim aud has a member that is not a string");
    BOOST_TEST(with("sub", "system:serviceaccount:other:trainer") ==
               "claim sub does not name the service account of claim kubernetes.io");
    BOOST_TEST(with("kubernetes.io", "team") == "claim kubernetes.io is missing or not an object");
    BOOST_TEST(with("kubernetes.io", json::object{{"namespace", "team"}}) == "claim kubernetes.io.serviceaccount is missing");
    BOOST_TEST(with("kubernetes.io", json::object{{"namespace", "team"}, {"serviceaccount", {{"name", "trainer"}}},
                                                  {"pod", {{"uid", "u"}}}}) == "claim kubernetes.io.pod.name is missing");
}

BOOST_AUTO_TEST_SUITE_END()
