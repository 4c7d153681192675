// The status server's parts without sockets: token extraction, path matching, Go-compatible
// decoding and encoding, the token bucket on a FakeClock, and the store write.
#define BOOST_TEST_MODULE test_core_statusserver
#include <boost/test/unit_test.hpp>

#include "core/api/kinds.hpp"
#include "core/statusserver/bearer_token.hpp"
#include "core/statusserver/go_json.hpp"
#include "core/statusserver/status_path.hpp"
#include "core/statusserver/token_bucket.hpp"
#include "core/statusserver/trainer_status_writer.hpp"
#include "core/statusserver/update_request.hpp"
#include "test_support.hpp"

using namespace trainer::core::statusserver;
namespace json = boost::json;
using trainer::core::controller::FakeClock;

BOOST_AUTO_TEST_SUITE(bearer_token)

// Upstream's TestExtractRawToken cases (pkg/statusserver/auth_test.go), plus Unicode white space.
BOOST_AUTO_TEST_CASE(extracts_as_upstream) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"Bearer token", "token"},
        {"bearer token", "token"},
        {"BEARER token", "token"},
        {"Bearer \t token", "token"},
        {"  Bearer token  ", "token"},
        {"", ""},
        {"   ", ""},
        {"Bearer", ""},
        {"token", ""},
        {"Basic dXNlcjpwYXNz", ""},
        {"Bearerx token", ""},
        {"Bearer token another", ""},
        {"Bearer\xC2\xA0token", "token"},         // U+00A0 separates, as in Go's strings.Fields
        {"Bearer\xE3\x80\x80token", "token"},     // U+3000
        {"Bearer tok\xC3\xA9n", "tok\xC3\xA9n"},  // other non-ASCII is part of the token
    };
    for (const auto& [header, want] : cases) BOOST_TEST(extractRawToken(header) == want, "header \"" << header << "\"");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(status_path)

BOOST_AUTO_TEST_CASE(matches_the_servemux_pattern) {
    BOOST_TEST(statusUrl("default", "job") == "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/job/status");
    auto ok = matchStatusPath(statusUrl("default", "job"));
    BOOST_TEST((ok.match == PathMatch::Match));
    BOOST_TEST(ok.target.ns == "default");
    BOOST_TEST(ok.target.name == "job");
    auto escaped = matchStatusPath("/apis/trainer%2Ekubeflow.org/v1alpha1/namespaces/a%2Fb/trainjobs/j%6Fb/status");
    BOOST_TEST((escaped.match == PathMatch::Match));
    BOOST_TEST(escaped.target.ns == "a/b");
    BOOST_TEST(escaped.target.name == "job");
    for (std::string p : {"/", "", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/job/status/",
                          "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/job",
                          "/apis/trainer.kubeflow.org/v1alpha1/namespaces//trainjobs/job/status",
                          "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/./status",
                          "/apis/trainer.kubeflow.org/v1/namespaces/default/trainjobs/job/status",
                          "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/jobs/job/status",
                          "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/job/status/extra",
                          "//apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/job/status"})
        BOOST_TEST((matchStatusPath(p).match == PathMatch::NoMatch), "path " << p);
    BOOST_TEST((matchStatusPath("/apis/trainer.kubeflow.org/v1alpha1/namespaces/%zz/trainjobs/job/status").match ==
                PathMatch::BadEscape));
    BOOST_TEST((matchStatusPath("/x%4").match == PathMatch::BadEscape));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(go_time)

BOOST_AUTO_TEST_CASE(parses_like_time_parse_rfc3339) {
    const std::vector<std::pair<std::string, std::string>> accepted{
        {"2025-01-23T10:30:45Z", "2025-01-23T10:30:45Z"},
        {"2026-06-12T03:00:00.123456+00:00", "2026-06-12T03:00:00Z"},  // Python's isoformat()
        {"2025-01-23T10:30:45.999999999999Z", "2025-01-23T10:30:45Z"},
        {"2025-01-23T01:30:45+02:00", "2025-01-22T23:30:45Z"},
        {"2025-01-23T22:30:45-02:30", "2025-01-24T01:00:45Z"},
        {"2024-02-29T00:00:00Z", "2024-02-29T00:00:00Z"},
        {"2025-01-23T1:30:45Z", "2025-01-23T01:30:45Z"},     // Go's general parser: a one-digit hour
        {"2025-01-23T10:30:45,5Z", "2025-01-23T10:30:45Z"},  // and a comma before the fraction
        {"1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"},
        {"0001-01-01T00:00:01Z", "0001-01-01T00:00:01Z"},
        {"9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z"},
    };
    for (const auto& [in, out] : accepted) {
        auto t = parseGoRfc3339(in);
        BOOST_TEST_REQUIRE(t.has_value(), "accepts " << in);
        BOOST_TEST(formatGoRfc3339(*t) == out);
    }
    for (std::string in : {"", "2025-01-23", "2025-01-23 10:30:45Z", "2025-01-23t10:30:45Z", "2025-01-23T10:30:45z",
                           "2025-01-23T10:30:45", "2025-02-30T10:30:45Z", "2025-13-01T10:30:45Z", "2025-01-23T24:00:00Z",
                           "2025-01-23T10:60:00Z", "2025-01-23T10:30:60Z", "2025-01-23T10:30:45+0200",
                           "2025-01-23T10:30:45Z ", "2025-01-23T10:30:45.Z", "25-01-23T10:30:45Z", "2025-1-23T10:30:45Z"})
        BOOST_TEST(!parseGoRfc3339(in).has_value(), "refuses \"" << in << "\"");
    BOOST_TEST(parseGoRfc3339("0001-01-01T00:00:00Z")->isZero());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(go_json)

BOOST_AUTO_TEST_CASE(quotes_like_encoding_json) {
    BOOST_TEST(goQuote("a\"b\\c") == R"("a\"b\\c")");
    BOOST_TEST(goQuote("<&>") == R"("\u003c\u0026\u003e")");
    BOOST_TEST(goQuote(std::string("\b\f\n\r\t\x01", 6)) == R"("\b\f\n\r\t\u0001")");
    BOOST_TEST(goQuote("\xE2\x80\xA8\xE2\x80\xA9") == R"("\u2028\u2029")");
    BOOST_TEST(goQuote("\xFF") == R"("\ufffd")");
    BOOST_TEST(goQuote("h\xC3\xA9") == "\"h\xC3\xA9\"");
}

BOOST_AUTO_TEST_CASE(decodes_strings_like_encoding_json) {
    BOOST_TEST(sanitizeUtf8("a\xFF" "b") == "a\xEF\xBF\xBD" "b");
    BOOST_TEST(sanitizeUtf8("\xC0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong: two bad bytes
    BOOST_TEST(sanitizeUtf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
    BOOST_TEST(replaceLoneSurrogates(R"({"a":"\ud800x","b":"\ud83d\ude00","c":"\udc00\\ud800"})") ==
               R"({"a":"\ufffdx","b":"\ud83d\ude00","c":"\ufffd\\ud800"})");
    BOOST_TEST(keyMatches("TRAINERSTATUS", "trainerStatus"));
    BOOST_TEST(keyMatches("trainer\xC5\xBFtatus", "trainerStatus"));  // U+017F folds to s
    BOOST_TEST(!keyMatches("trainer_status", "trainerStatus"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(update_request)

BOOST_AUTO_TEST_CASE(decodes_the_documented_payload) {
    auto r = decodeUpdateRequest(R"({"trainerStatus": {"progressPercentage": 45, "estimatedRemainingSeconds": 795649,
        "metrics": [{"name": "loss", "value": "0.2347"}, {"name": "eval_loss", "value": "0.2451"}],
        "lastUpdatedTime": "2025-01-23T10:30:45Z"}})");
    BOOST_TEST_REQUIRE(r.request.has_value(), r.error);
    const auto& s = *r.request->trainerStatus;
    BOOST_TEST(*s.progressPercentage == 45);
    BOOST_TEST(*s.estimatedRemainingSeconds == 795649);
    BOOST_TEST(s.metrics.size() == 2u);
    BOOST_TEST(json::serialize(trainerStatusObject(s)) ==
               R"({"progressPercentage":45,"estimatedRemainingSeconds":795649,"metrics":[{"name":"loss","value":"0.2347"},{"name":"eval_loss","value":"0.2451"}],"lastUpdatedTime":"2025-01-23T10:30:45Z"})");
    BOOST_TEST(encodeUpdateRequest(*r.request) ==
               R"({"trainerStatus":{"progressPercentage":45,"estimatedRemainingSeconds":795649,"metrics":[{"name":"loss","value":"0.2347"},{"name":"eval_loss","value":"0.2451"}],"lastUpdatedTime":"2025-01-23T10:30:45Z"}})"
               "\n");
}

// What json.NewDecoder(body).Decode(&UpdateTrainJobStatusRequest{}) accepts, and what it leaves.
BOOST_AUTO_TEST_CASE(accepts_what_go_accepts) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"{}", "{}\n"},
        {"null", "{}\n"},
        {R"({"trainerStatus":null})", "{}\n"},
        {R"({"other":[1,{"x":null}],"trainerStatus":null})", "{}\n"},
        {R"({"trainerStatus":{}})", "{\"trainerStatus\":{\"lastUpdatedTime\":null}}\n"},
        {R"({"trainerStatus":{"progressPercentage":null,"metrics":[],"lastUpdatedTime":null}})",
         "{\"trainerStatus\":{\"lastUpdatedTime\":null}}\n"},
        {R"({"TrainerStatus":{"PROGRESSPERCENTAGE":7,"lastupdatedtime":"2025-01-23T10:30:45Z"}})",
         "{\"trainerStatus\":{\"progressPercentage\":7,\"lastUpdatedTime\":\"2025-01-23T10:30:45Z\"}}\n"},
        {R"({"trainerStatus":{"progressPercentage":-0,"unknown":true,"lastUpdatedTime":"2025-01-23T10:30:45Z"}} trailing)",
         "{\"trainerStatus\":{\"progressPercentage\":0,\"lastUpdatedTime\":\"2025-01-23T10:30:45Z\"}}\n"},
        {R"({"trainerStatus":{"metrics":[null,{"name":null,"value":"<v>"}],"lastUpdatedTime":"2025-01-23T10:30:45Z"}})",
         "{\"trainerStatus\":{\"metrics\":[{},{\"value\":\"\\u003cv\\u003e\"}],\"lastUpdatedTime\":\"2025-01-23T10:30:45Z\"}}\n"},
        {R"({"trainerStatus":{"progressPercentage":1},"trainerStatus":{"progressPercentage":2}})",
         "{\"trainerStatus\":{\"progressPercentage\":2,\"lastUpdatedTime\":null}}\n"},
        {R"({"trainerStatus":{"progressPercentage":1},"TRAINERSTATUS":{"estimatedRemainingSeconds":2}})",
         "{\"trainerStatus\":{\"progressPercentage\":1,\"estimatedRemainingSeconds\":2,\"lastUpdatedTime\":null}}\n"},
        {R"({"trainerStatus":{"progressPercentage":2147483647,"estimatedRemainingSeconds":-2147483648}})",
         "{\"trainerStatus\":{\"progressPercentage\":2147483647,\"estimatedRemainingSeconds\":-2147483648,\"lastUpdatedTime\":null}}\n"},
        {"{\"trainerStatus\":{\"metrics\":[{\"name\":\"\\ud800\",\"value\":\"a\xFF\"}]}}",
         "{\"trainerStatus\":{\"metrics\":[{\"name\":\"\xEF\xBF\xBD\",\"value\":\"a\xEF\xBF\xBD\"}],\"lastUpdatedTime\":null}}\n"},
        {std::string(R"({"deep":)") + std::string(9999, '[') + std::string(9999, ']') + "}", "{}\n"},
    };
    for (const auto& [body, echo] : cases) {
        auto r = decodeUpdateRequest(body);
        BOOST_TEST_REQUIRE(r.request.has_value(), "accepts " << body.substr(0, 120) << ": " << r.error);
        BOOST_TEST(encodeUpdateRequest(*r.request) == echo, "body " << body.substr(0, 120));
    }
}

BOOST_AUTO_TEST_CASE(refuses_what_go_refuses) {
    const std::vector<std::string> bodies{
        "",
        "   ",
        "invalid payload",
        "{",
        R"({"trainerStatus":{"progressPercentage":50,}})",
        "[]",
        "5",
        R"("text")",
        R"({"trainerStatus":[]})",
        R"({"trainerStatus":"x"})",
        R"({"trainerStatus":{"progressPercentage":"50"}})",
        R"({"trainerStatus":{"progressPercentage":50.0}})",
        R"({"trainerStatus":{"progressPercentage":5e1}})",
        R"({"trainerStatus":{"progressPercentage":2147483648}})",
        R"({"trainerStatus":{"estimatedRemainingSeconds":-2147483649}})",
        R"({"trainerStatus":{"progressPercentage":true}})",
        R"({"trainerStatus":{"metrics":{"name":"loss"}}})",
        R"({"trainerStatus":{"metrics":["loss"]}})",
        R"({"trainerStatus":{"metrics":[{"name":1,"value":"x"}]}})",
        R"({"trainerStatus":{"metrics":[{"name":"x","value":0.5}]}})",
        R"({"trainerStatus":{"lastUpdatedTime":1700000000}})",
        R"({"trainerStatus":{"lastUpdatedTime":""}})",
        R"({"trainerStatus":{"lastUpdatedTime":"yesterday"}})",
        R"({"trainerStatus":{"lastUpdatedTime":"2025-01-23T10:30:45"}})",
        std::string(R"({"deep":)") + std::string(10000, '[') + std::string(10000, ']') + "}",
        "{\"a\":\"\x01\"}",
    };
    for (const auto& body : bodies) {
        auto r = decodeUpdateRequest(body);
        BOOST_TEST(!r.request.has_value(), "refuses " << body.substr(0, 120));
        BOOST_TEST(!r.error.empty());
    }
}

BOOST_AUTO_TEST_CASE(stored_form_follows_the_apply_configuration) {
    TrainerStatusUpdate s;
    s.metrics.push_back({"", ""});
    BOOST_TEST(json::serialize(trainerStatusObject(s)) == R"({"metrics":[{"name":"","value":""}]})");
    s = {};
    s.lastUpdatedTime = *parseGoRfc3339("2025-01-23T10:30:45.5+01:00");
    BOOST_TEST(json::serialize(trainerStatusObject(s)) == R"({"lastUpdatedTime":"2025-01-23T09:30:45Z"})");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(token_bucket)

BOOST_AUTO_TEST_CASE(burst_then_qps_on_the_fake_clock) {
    FakeClock clock;
    TokenBucket bucket(5, 10, clock);
    for (int i = 0; i < 10; ++i) BOOST_TEST(bucket.take().allowed, "burst token " << i);
    auto refused = bucket.take();
    BOOST_TEST(!refused.allowed);
    BOOST_TEST(refused.retryAfter.count() == 1);
    clock.advance(std::chrono::milliseconds(100));  // half a token
    BOOST_TEST(!bucket.take().allowed);
    clock.advance(std::chrono::milliseconds(100));
    BOOST_TEST(bucket.take().allowed);
    BOOST_TEST(!bucket.take().allowed);
    clock.advance(std::chrono::hours(1));  // refills to the burst, not beyond
    for (int i = 0; i < 10; ++i) BOOST_TEST(bucket.take().allowed);
    BOOST_TEST(!bucket.take().allowed);
    clock.advance(-std::chrono::hours(2));  // a clock going back refills nothing
    BOOST_TEST(!bucket.take().allowed);
}

BOOST_AUTO_TEST_CASE(client_go_defaults_and_unlimited) {
    FakeClock clock;
    TokenBucket defaults(0, 0, clock);  // 5 qps, burst 10
    for (int i = 0; i < 10; ++i) BOOST_TEST(defaults.take().allowed);
    BOOST_TEST(!defaults.take().allowed);
    TokenBucket unlimited(-1, 1, clock);
    for (int i = 0; i < 1000; ++i) BOOST_TEST_REQUIRE(unlimited.take().allowed);
    TokenBucket slow(0.1, 1, clock);
    BOOST_TEST(slow.take().allowed);
    BOOST_TEST(slow.take().retryAfter.count() == 10);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(trainer_status_writer)

namespace {

trainer::core::ObjectKey jobKey(const std::string& name) {
    return {std::string(trainer::core::kTrainerApiVersion), "TrainJob", "team-a", name};
}

trainer::core::StoreResult failed(trainer::core::StoreStatus s) {
    trainer::core::StoreResult r;
    r.status = s;
    r.message = "store says no";
    return r;
}

const json::object kStatus{{"progressPercentage", 5}, {"lastUpdatedTime", "2025-01-23T10:30:45Z"}};

}  // namespace

BOOST_AUTO_TEST_CASE(replaces_trainer_status_only) {
    trainer::test::InterceptStore store;
    auto seeded = trainer::test::seedTrainJob(store, "team-a", "job");
    BOOST_TEST_REQUIRE(!seeded.empty());
    store.inner.updateStatus([&] {
        auto o = store.inner.get(jobKey("job")).object;
        o["status"].as_object()["trainerStatus"] = json::object{{"metrics", json::array{json::object{{"name", "a"}, {"value", "1"}}}},
                                                                 {"lastUpdatedTime", "2025-01-23T10:00:00Z"}};
        return o;
    }());
    auto r = writeTrainerStatus(store, "team-a", "job", kStatus, 5);
    BOOST_TEST((r.outcome == WriteOutcome::Written), r.message);
    auto job = store.inner.get(jobKey("job")).object;
    BOOST_TEST(job.at("status").at("trainerStatus") == json::value(kStatus));  // replaced, not merged
    BOOST_TEST(job.at("status").at("conditions") == seeded.at("status").at("conditions"));
    BOOST_TEST(job.at("spec") == seeded.at("spec"));
    // The same status again: Written, and nothing new is stored.
    auto rv = trainer::test::resourceVersion(store, "team-a", "job");
    BOOST_TEST((writeTrainerStatus(store, "team-a", "job", kStatus, 5).outcome == WriteOutcome::Written));
    BOOST_TEST(trainer::test::resourceVersion(store, "team-a", "job") == rv);
}

BOOST_AUTO_TEST_CASE(outcomes) {
    trainer::test::InterceptStore store;
    BOOST_TEST_REQUIRE(!trainer::test::seedTrainJob(store, "team-a", "job").empty());
    auto rv = trainer::test::resourceVersion(store, "team-a", "job");
    auto revision = store.revision().value;

    auto absent = writeTrainerStatus(store, "team-a", "missing", kStatus, 5);
    BOOST_TEST((absent.outcome == WriteOutcome::NotFound));
    BOOST_TEST(store.inner.get(jobKey("missing")).notFound());

    auto invalid = writeTrainerStatus(store, "team-a", "job", json::object{{"progressPercentage", 101}}, 5);
    BOOST_TEST((invalid.outcome == WriteOutcome::Invalid));
    BOOST_TEST(invalid.message ==
               "TrainJob.trainer.kubeflow.org \"job\" is invalid: [status.trainerStatus.progressPercentage: Invalid value: "
               "101: status.trainerStatus.progressPercentage in body should be less than or equal to 100, "
               "status.trainerStatus: Invalid value: \"object\": lastUpdatedTime is required when trainerStatus is present]");

    int calls = 0;
    store.onUpdateStatus = [&](const json::object&) {
        ++calls;
        return failed(trainer::core::StoreStatus::Conflict);
    };
    auto conflicts = writeTrainerStatus(store, "team-a", "job", kStatus, 4);
    BOOST_TEST((conflicts.outcome == WriteOutcome::Error));
    BOOST_TEST(calls == 4);

    store.onUpdateStatus = [&](const json::object&) { return failed(trainer::core::StoreStatus::Error); };
    BOOST_TEST((writeTrainerStatus(store, "team-a", "job", kStatus, 4).outcome == WriteOutcome::Error));
    store.onUpdateStatus = [&](const json::object&) { return failed(trainer::core::StoreStatus::NotFound); };
    BOOST_TEST((writeTrainerStatus(store, "team-a", "job", kStatus, 4).outcome == WriteOutcome::NotFound));
    store.onUpdateStatus = [&](const json::object&) { return failed(trainer::core::StoreStatus::Invalid); };
    auto refused = writeTrainerStatus(store, "team-a", "job", kStatus, 4);
    BOOST_TEST((refused.outcome == WriteOutcome::Invalid));
    BOOST_TEST(refused.message == "store says no");

    // A read that fails is Error at once: no probe, nothing written.
    int probes = 0;
    store.onGet = [](const trainer::core::ObjectKey&) {
        return trainer::core::ReadResult::error("store: sqlite step: database is locked");
    };
    store.onUpdateStatus = [&](const json::object&) { return ++probes, failed(trainer::core::StoreStatus::Error); };
    auto unreadable = writeTrainerStatus(store, "team-a", "job", kStatus, 4);
    BOOST_TEST((unreadable.outcome == WriteOutcome::Error));
    BOOST_TEST(unreadable.message.find("database is locked") != std::string::npos, unreadable.message);
    BOOST_TEST(probes == 0);
    // Unreadable (get() says nothing) yet the probe cannot confirm absence: Error, not NotFound.
    store.onGet = [](const trainer::core::ObjectKey&) { return trainer::core::ReadResult::absent(); };
    store.onUpdateStatus = [&](const json::object& o) {
        BOOST_TEST(o.at("metadata").at("resourceVersion") == "0");  // the probe never writes
        return failed(trainer::core::StoreStatus::Error);
    };
    BOOST_TEST((writeTrainerStatus(store, "team-a", "job", kStatus, 4).outcome == WriteOutcome::Error));
    // get() keeps missing an object the probe says exists: gives up after maxAttempts.
    store.onUpdateStatus = nullptr;
    BOOST_TEST((writeTrainerStatus(store, "team-a", "job", kStatus, 3).outcome == WriteOutcome::Error));
    // A cache that misses once, and the probe answered as kube-apiserver answers it for an
    // existing TrainJob (422): read again, then written.
    int misses = 1;
    store.onGet = [&](const trainer::core::ObjectKey& k) {
        return misses-- > 0 ? trainer::core::ReadResult::absent() : store.inner.get(k);
    };
    store.onUpdateStatus = [&](const json::object& o) {
        if (o.at("metadata").at("resourceVersion") == "0") return failed(trainer::core::StoreStatus::Invalid);
        return store.inner.updateStatus(o);
    };
    auto afterMiss = writeTrainerStatus(store, "team-a", "job", kStatus, 3);
    BOOST_TEST((afterMiss.outcome == WriteOutcome::Written), afterMiss.message);
    BOOST_TEST(store.inner.get(jobKey("job")).object.at("status").at("trainerStatus") == json::value(kStatus));
    store.onGet = nullptr;
    store.onUpdateStatus = nullptr;
    rv = trainer::test::resourceVersion(store.inner, "team-a", "job");
    revision = store.revision().value;

    BOOST_TEST(trainer::test::resourceVersion(store.inner, "team-a", "job") == rv);
    BOOST_TEST(store.revision().value == revision);
}

BOOST_AUTO_TEST_SUITE_END()
