#include <boost/test/unit_test.hpp>

#include "core/log/log.hpp"
#include "core/server/certs.hpp"
#include "core/server/metrics.hpp"
#include "core/server/webhook.hpp"
#include "test_util.hpp"

#include <future>
#include <sstream>

using namespace trainer::core::server;
using trainer::test::curl;
using trainer::test::run;
namespace json = boost::json;

namespace {

const char* kStamp = "2026-01-01T00:00:00Z";

// Denies TrainJobs labelled deny=yes with two field errors; always warns.
AdmissionResponse validateTrainJob(const AdmissionRequest& req) {
    std::vector<std::string> warnings{"Referenced ClusterTrainingRuntime \"old\" is deprecated"};
    const auto* labels = req.object.is_object() ? req.object.as_object().if_contains("metadata") : nullptr;
    labels = labels && labels->is_object() ? labels->as_object().if_contains("labels") : nullptr;
    if (labels && labels->is_object() && labels->as_object().contains("deny"))
        return AdmissionResponse::deny({{"spec.runtimeRef", "unsupported runtime: foo", trainer::core::ErrorType::Invalid, ""},
                                        {"spec.trainer.numNodes", "must be greater than 0", trainer::core::ErrorType::Invalid, ""}},
                                       warnings);
    return AdmissionResponse::allow(warnings);
}

// Stamps spec.runtimePatches[].time where missing (as upstream's TrainJobDefaulter.Default in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/webhooks/trainjob_webhook.go).
AdmissionResponse mutateTrainJob(const AdmissionRequest& req) {
    json::value mutated = req.object;
    if (auto* spec = mutated.as_object().if_contains("spec"))
        if (auto* patches = spec->as_object().if_contains("runtimePatches"))
            for (auto& p : patches->as_array())
                if (!p.as_object().contains("time")) p.as_object()["time"] = kStamp;
    return AdmissionResponse::patched(req.object, mutated);
}

json::object trainJob(bool deny) {
    json::object labels;
    if (deny) labels["deny"] = "yes";
    return json::object{
        {"apiVersion", "trainer.kubeflow.org/v1alpha1"},
        {"kind", "TrainJob"},
        {"metadata", {{"name", "mnist"}, {"namespace", "default"}, {"labels", labels}}},
        {"spec",
         {{"runtimeRef", {{"name", "torch-distributed"}}},
          {"runtimePatches", json::array{json::object{{"manager", "a/b"}}, json::object{{"manager", "c/d"}, {"time", "x"}}}}}}};
}

std::string review(const std::string& uid, const json::object& object) {
    return json::serialize(json::object{
        {"apiVersion", "admission.k8s.io/v1"},
        {"kind", "AdmissionReview"},
        {"request",
         {{"uid", uid},
          {"kind", {{"group", "trainer.kubeflow.org"}, {"version", "v1alpha1"}, {"kind", "TrainJob"}}},
          {"resource", {{"group", "trainer.kubeflow.org"}, {"version", "v1alpha1"}, {"resource", "trainjobs"}}},
          {"name", "mnist"},
          {"namespace", "default"},
          {"operation", "CREATE"},
          {"object", object}}}});
}

struct Fixture {
    Fixture() : dir(trainer::test::tempDir("webhook")), watcher(dir.string()), registry() {
        logs = std::make_shared<std::ostringstream>();
        trainer::core::log::init({trainer::core::log::Level::Info, trainer::core::log::Encoder::Json, logs});
        BOOST_TEST_REQUIRE(generateCertificates(dir.string(), CertOptions{"trainer-webhook", "kubeflow", 30,
                                                                          KeyType::EcdsaP256}) == "");
        BOOST_TEST_REQUIRE(watcher.load() == "");
        WebhookServer hooks(&registry);
        hooks.handle(std::string(kValidateTrainJobPath), std::string(kValidateTrainJobName), validateTrainJob);
        hooks.handle(std::string(kMutateTrainJobPath), std::string(kMutateTrainJobName), mutateTrainJob);
        ServerOptions o;
        o.name = "webhook";
        o.bindAddress = "127.0.0.1:0";
        o.tls = watcher.provider();
        auto routes = hooks.routes();
        routes.push_back(metricsRoute(registry));
        server = std::make_unique<HttpServer>(runner.io, o, routes);
        BOOST_TEST_REQUIRE(server->start() == "");
        port = std::to_string(server->port());
    }
    ~Fixture() {
        server->stop();
        trainer::core::log::init({trainer::core::log::Level::Warn, trainer::core::log::Encoder::Console, nullptr});
    }

    trainer::test::HttpResult post(const std::string& path, const std::string& body,
                                   const std::string& contentType = "application/json") {
        auto file = dir / "body.json";
        trainer::test::writeFile(file, body);
        return curl("--cacert " + (dir / "ca.crt").string() + " -H 'Content-Type: " + contentType +
                    "' --data-binary @" + file.string() + " https://127.0.0.1:" + port + path);
    }
    std::string servedSerial() {
        return run("openssl s_client -connect 127.0.0.1:" + port +
                   " -servername localhost </dev/null 2>/dev/null | openssl x509 -noout -serial 2>/dev/null")
            .output;
    }
    std::string fileSerial() { return run("openssl x509 -noout -serial -in " + (dir / "tls.crt").string()).output; }

    std::filesystem::path dir;
    CertWatcher watcher;
    Registry registry;
    std::shared_ptr<std::ostringstream> logs;
    trainer::test::IoRunner runner;
    std::unique_ptr<HttpServer> server;
    std::string port;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(webhook)

// The handler receives every part of the review (moved out of the parsed document, not copied)
// and may consume the request: the answer still carries the review's uid.
BOOST_AUTO_TEST_CASE(a_handler_may_consume_the_request) {
    json::object userInfo{{"username", "alice"}, {"groups", json::array{"dev"}}};
    json::object body = json::parse(review("uid-7", trainJob(false))).as_object();
    body["request"].as_object()["userInfo"] = userInfo;
    body["request"].as_object()["oldObject"] = trainJob(true);
    Request req;
    req.method = "POST";
    req.path = "/validate";
    req.headers = {{"content-type", "application/json"}};  // stored lower-case, as the server reads them
    req.body = json::serialize(body);
    json::value taken, takenOld;
    auto res = serveAdmission(req, "vtrainjob.example", [&](AdmissionRequest& r) {
        BOOST_TEST(r.uid == "uid-7");
        BOOST_TEST(r.kind.at("kind") == "TrainJob");
        BOOST_TEST(r.resource.at("resource") == "trainjobs");
        BOOST_TEST(r.userInfo == userInfo);
        taken = std::move(r.object);
        takenOld = std::move(r.oldObject);
        return AdmissionResponse::allow();
    });
    BOOST_TEST_REQUIRE(res.status == 200u, res.body);
    BOOST_TEST(taken == json::value(trainJob(false)));
    BOOST_TEST(takenOld == json::value(trainJob(true)));
    auto answer = json::parse(res.body).as_object();
    BOOST_TEST(answer.at("response").at("uid") == "uid-7");
    BOOST_TEST(answer.at("response").at("allowed") == true);
}

// Each review is logged at debug level with what was decided, and not at all at info level.
BOOST_AUTO_TEST_CASE(a_review_is_logged_at_debug_level_only) {
    Request req;
    req.method = "POST";
    req.path = "/validate";
    req.headers = {{"content-type", "application/json"}};
    req.body = review("uid-log", trainJob(false));
    auto allow = [](AdmissionRequest&) { return AdmissionResponse::allow(); };
    for (auto level : {trainer::core::log::Level::Info, trainer::core::log::Level::Debug}) {
        auto out = std::make_shared<std::ostringstream>();
        trainer::core::log::init(trainer::core::log::Options{level, trainer::core::log::Encoder::Json, out});
        BOOST_TEST_REQUIRE(serveAdmission(req, "vtrainjob.example", allow).status == 200u);
        const std::string lines = out->str();
        const bool logged = lines.find("\"msg\":\"admission reviewed\"") != std::string::npos;
        BOOST_TEST(logged == (level == trainer::core::log::Level::Debug), lines);
        if (logged) {
            BOOST_TEST(lines.find("\"uid\":\"uid-log\"") != std::string::npos, lines);
            BOOST_TEST(lines.find("\"allowed\":true") != std::string::npos, lines);
        }
    }
    trainer::core::log::init(trainer::core::log::Options{});
}

BOOST_AUTO_TEST_CASE(diff_patch_round_trips) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {R"({"a":1})", R"({"a":2})"},
        {R"({"a":1,"b":{"c":[1,2]}})", R"({"b":{"c":[1,3],"d":"x"}})"},
        {R"({"a/b":1,"m~n":2})", R"({"a/b":3,"new~/key":4})"},
        {R"({"list":[1,2,3]})", R"({"list":[1]})"},
        {R"({"list":[{"name":"a"},{"name":"b"}]})", R"({"list":[{"name":"a","time":"t"},{"name":"b"}]})"},
        {R"([1,2])", R"({"now":"object"})"},
        {R"({"same":true})", R"({"same":true})"},
    };
    for (const auto& [from, to] : cases) {
        BOOST_TEST_CONTEXT(from << " -> " << to) {
            auto a = json::parse(from);
            auto b = json::parse(to);
            auto patch = diffPatch(a, b);
            std::string error;
            auto applied = applyPatch(a, patch, error);
            BOOST_TEST_REQUIRE(applied.has_value(), error);
            BOOST_TEST(*applied == b, json::serialize(patch));
        }
    }
    BOOST_TEST(diffPatch(json::parse(R"({"same":true})"), json::parse(R"({"same":true})")).empty());
    auto ops = diffPatch(json::parse(R"({"a/b":1})"), json::parse(R"({"a/b":2})"));
    BOOST_TEST(json::serialize(ops) == R"([{"op":"replace","path":"/a~1b","value":2}])");
}

BOOST_AUTO_TEST_CASE(apply_patch_rejects_bad_operations) {
    const std::vector<std::string> bad{
        R"([{"op":"replace","path":"/missing","value":1}])", R"([{"op":"remove","path":"/x/y"}])",
        R"([{"op":"add","path":"no-slash","value":1}])",     R"([{"op":"frobnicate","path":"/a"}])",
        R"([{"op":"test","path":"/a","value":2}])",          R"([{"op":"add","path":"/l/9","value":1}])",
        R"([1])",
    };
    for (const auto& p : bad) {
        std::string error;
        BOOST_TEST(!applyPatch(json::parse(R"({"a":1,"l":[]})"), json::parse(p).as_array(), error), p);
        BOOST_TEST(!error.empty());
    }
    std::string error;
    auto ok = applyPatch(json::parse(R"({"a":1,"l":[1]})"),
                         json::parse(R"([{"op":"add","path":"/l/-","value":2},{"op":"move","from":"/a","path":"/b"},
                                         {"op":"copy","from":"/b","path":"/c"},{"op":"test","path":"/c","value":1}])")
                             .as_array(),
                         error);
    BOOST_TEST_REQUIRE(ok.has_value(), error);
    BOOST_TEST(*ok == json::parse(R"({"l":[1,2],"b":1,"c":1})"));
}

BOOST_AUTO_TEST_CASE(base64_and_denial_messages) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"[{\"op\":1}]", "W3sib3AiOjF9XQ=="}};
    for (const auto& [plain, encoded] : cases) {
        BOOST_TEST(base64Encode(plain) == encoded);
        BOOST_TEST(base64Decode(encoded).value_or("<bad>") == plain);
    }
    BOOST_TEST(!base64Decode("abc").has_value());
    auto denied = AdmissionResponse::deny({{"spec.a", "bad", trainer::core::ErrorType::Invalid, ""}, {"", "worse", trainer::core::ErrorType::Invalid, ""}});
    BOOST_TEST(denied.code == 403u);
    BOOST_TEST(denied.reason == "Forbidden");
    BOOST_TEST(denied.message == "spec.a: bad, worse");
    BOOST_TEST(apiServerDenialMessage(kValidateTrainJobName, denied) ==
               "admission webhook \"validator.trainjob.trainer.kubeflow.org\" denied the request: spec.a: bad, worse");
}

BOOST_FIXTURE_TEST_CASE(admission_review_round_trip_over_https, Fixture) {
    // Allowed, with a warning; uid echoed.
    auto r = post(std::string(kValidateTrainJobPath), review("uid-allowed", trainJob(false)));
    BOOST_TEST_REQUIRE(r.status == 200, "curl exit " << r.curlExit);
    BOOST_TEST(r.contentType == "application/json");
    auto res = json::parse(r.body).at("response").as_object();
    BOOST_TEST(json::parse(r.body).at("apiVersion").as_string() == "admission.k8s.io/v1");
    BOOST_TEST(json::parse(r.body).at("kind").as_string() == "AdmissionReview");
    BOOST_TEST(res.at("uid").as_string() == "uid-allowed");
    BOOST_TEST(res.at("allowed").as_bool());
    BOOST_TEST(res.at("warnings").as_array().size() == 1u);
    BOOST_TEST(!res.contains("patch"));

    // Denied: 403 in the status with the field errors.
    r = post(std::string(kValidateTrainJobPath), review("uid-denied", trainJob(true)));
    BOOST_TEST_REQUIRE(r.status == 200);
    res = json::parse(r.body).at("response").as_object();
    BOOST_TEST(res.at("uid").as_string() == "uid-denied");
    BOOST_TEST(!res.at("allowed").as_bool());
    BOOST_TEST(res.at("status").at("code").to_number<int>() == 403);
    BOOST_TEST(res.at("status").at("reason").as_string() == "Forbidden");
    BOOST_TEST(res.at("status").at("message").as_string() ==
               "spec.runtimeRef: unsupported runtime: foo, spec.trainer.numNodes: must be greater than 0");
    BOOST_TEST(res.at("warnings").at(0).as_string() == "Referenced ClusterTrainingRuntime \"old\" is deprecated");

    // Mutation: a base64 JSON Patch that stamps the missing time.
    auto job = trainJob(false);
    r = post(std::string(kMutateTrainJobPath), review("uid-mutate", job));
    BOOST_TEST_REQUIRE(r.status == 200);
    res = json::parse(r.body).at("response").as_object();
    BOOST_TEST(res.at("uid").as_string() == "uid-mutate");
    BOOST_TEST(res.at("allowed").as_bool());
    BOOST_TEST(res.at("patchType").as_string() == "JSONPatch");
    auto decoded = base64Decode(res.at("patch").as_string());
    BOOST_TEST_REQUIRE(decoded.has_value());
    auto patch = json::parse(*decoded).as_array();
    BOOST_TEST(json::serialize(patch) == R"([{"op":"add","path":"/spec/runtimePatches/0/time","value":")" +
                                             std::string(kStamp) + R"("}])");
    std::string error;
    auto patched = applyPatch(job, patch, error);
    BOOST_TEST_REQUIRE(patched.has_value(), error);
    BOOST_TEST(patched->at("spec").at("runtimePatches").at(0).at("time").as_string() == kStamp);
    BOOST_TEST(patched->at("spec").at("runtimePatches").at(1).at("time").as_string() == "x");

    // DNS SAN: the service name resolves to 127.0.0.1 and verifies.
    auto viaName = curl("--cacert " + (dir / "ca.crt").string() + " --resolve trainer-webhook.kubeflow.svc:" + port +
                        ":127.0.0.1 -H 'Content-Type: application/json' --data-binary '" +
                        review("uid-dns", trainJob(false)) + "' https://trainer-webhook.kubeflow.svc:" + port +
                        std::string(kValidateTrainJobPath));
    BOOST_TEST(viaName.status == 200);
    // Without the CA, curl refuses the certificate.
    auto untrusted = curl("-X POST https://127.0.0.1:" + port + std::string(kValidateTrainJobPath));
    BOOST_TEST(untrusted.status == 0);

    auto metrics = curl("--cacert " + (dir / "ca.crt").string() + " https://127.0.0.1:" + port + "/metrics");
    BOOST_TEST(metrics.body.find("controller_runtime_webhook_requests_total{webhook=\"" +
                                 std::string(kValidateTrainJobPath) + "\",code=\"200\"} 3") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(malformed_admission_requests_get_400_and_serving_continues, Fixture) {
    const std::string path(kValidateTrainJobPath);
    struct Case {
        std::string name;
        std::string body;
        std::string contentType;
        int status;
        std::string message;  // substring of response.status.message
    };
    auto noUid = review("", trainJob(false));
    const std::vector<Case> cases{
        {"bad json", "{\"apiVersion\": ", "application/json", 400, "couldn't decode AdmissionReview"},
        {"not an object", "[1,2]", "application/json", 400, "not a JSON object"},
        {"wrong content type", review("u1", trainJob(false)), "text/plain", 400, "expected application/json"},
        {"missing uid", noUid, "application/json", 400, "request.uid: required value"},
        {"wrong kind", R"({"apiVersion":"admission.k8s.io/v1","kind":"Pod","request":{"uid":"u"}})", "application/json",
         400, "kind: unsupported value"},
        {"wrong apiVersion", R"({"apiVersion":"v1","kind":"AdmissionReview","request":{"uid":"u"}})",
         "application/json", 400, "apiVersion: unsupported value"},
        {"no request", R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})", "application/json", 400,
         "request: required value"},
        {"charset parameter is fine", review("u2", trainJob(false)), "application/json; charset=utf-8", 200, ""},
    };
    for (const auto& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            auto r = post(path, c.body, c.contentType);
            BOOST_TEST(r.status == c.status);
            boost::system::error_code ec;
            auto doc = json::parse(r.body, ec);
            BOOST_TEST_REQUIRE(!ec, r.body);
            if (c.status == 400) {
                std::string msg(doc.at("response").at("status").at("message").as_string());
                BOOST_TEST(msg.find(c.message) != std::string::npos, msg);
                BOOST_TEST(doc.at("response").at("status").at("code").to_number<int>() == 400);
            }
        }
    }
    // A body over 3 MiB: 413.
    auto huge = "{\"pad\":\"" + std::string(4 << 20, 'x') + "\"}";
    BOOST_TEST(post(path, huge).status == 413);
    // A slow TLS client (connects, never handshakes) does not block others.
    auto slow = std::async(std::launch::async, [p = server->port()] {
        return trainer::test::rawExchange(p, "\x16\x03\x01", 1500);
    });
    BOOST_TEST(post(path, review("after", trainJob(false))).status == 200);
    slow.get();
    // GET on a webhook path: 405.
    BOOST_TEST(curl("--cacert " + (dir / "ca.crt").string() + " https://127.0.0.1:" + port + path).status == 405);

    // The bad requests were logged as zap JSON lines.
    std::istringstream in(logs->str());
    int badLines = 0;
    for (std::string line; std::getline(in, line);) {
        boost::system::error_code ec;
        auto v = json::parse(line, ec);
        BOOST_TEST_REQUIRE(!ec, line);
        for (const auto* key : {"level", "ts", "logger", "caller", "msg"}) BOOST_TEST(v.as_object().contains(key), key);
        if (v.at("msg").as_string() == "bad admission request") {
            ++badLines;
            BOOST_TEST(v.at("logger").as_string() == "admission");
            BOOST_TEST(v.at("webhook").as_string() == kValidateTrainJobName);
        }
    }
    BOOST_TEST(badLines == 7);
}

BOOST_FIXTURE_TEST_CASE(certificates_reload_when_files_change, Fixture) {
    auto first = servedSerial();
    BOOST_TEST_REQUIRE(first.starts_with("serial="), first);
    BOOST_TEST(first == fileSerial());

    BOOST_TEST_REQUIRE(generateCertificates(dir.string(), CertOptions{"trainer-webhook", "kubeflow", 30,
                                                                      KeyType::Rsa2048}) == "");
    auto second = fileSerial();
    BOOST_TEST(second != first);
    BOOST_TEST(servedSerial() == second);
    BOOST_TEST(post(std::string(kValidateTrainJobPath), review("after-reload", trainJob(false))).status == 200);

    // A broken new certificate keeps the previous one and logs an error.
    trainer::test::writeFile(dir / "tls.crt", "-----BEGIN CERTIFICATE-----\nnot a cert\n-----END CERTIFICATE-----\n");
    BOOST_TEST(servedSerial() == second);
    BOOST_TEST(post(std::string(kValidateTrainJobPath), review("after-bad", trainJob(false))).status == 200);
    BOOST_TEST(logs->str().find("certificate reload failed") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
