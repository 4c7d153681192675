// The API server's request handling in process (ApiServer::handle on a MemoryStore): paths,
// authentication, discovery, verbs and their Status errors, CRD registration, watch streams.
// The same behaviours over real HTTPS with real clients are in test/e2e_api/.
#include <boost/test/unit_test.hpp>

#include "core/apiserver/api_server.hpp"
#include "core/apiserver/request_info.hpp"
#include "core/store/memory_store.hpp"

#include <chrono>
#include <memory>
#include <set>
#include <sstream>
#include <string>

using namespace trainer::core;
using namespace trainer::core::apiserver;

namespace {

ApiServerOptions withToken(std::string token) {
    ApiServerOptions o;
    o.token = std::move(token);
    return o;
}

struct Fixture {
    MemoryStore store;
    ResourceRegistry registry;
    ApiServerOptions options;
    ApiServer api{store, registry, nullptr, options};
    explicit Fixture(ApiServerOptions o = withToken("secret")) : options(std::move(o)) {
        BOOST_REQUIRE(api.initialize().empty());
    }

    server::Response call(const std::string& method, const std::string& target, const std::string& body = "",
                          const std::string& contentType = "application/json", const std::string& token = "secret") {
        server::Request r;
        r.method = method;
        auto q = target.find('?');
        r.path = target.substr(0, q);
        if (q != std::string::npos) r.query = target.substr(q + 1);
        if (!token.empty()) r.headers.emplace_back("authorization", "Bearer " + token);
        r.headers.emplace_back("content-type", contentType);
        r.headers.emplace_back("user-agent", "unit-test/1.0");
        r.body = body;
        return api.handle(r);
    }
    static json::object parse(const server::Response& r) {
        boost::system::error_code ec;
        json::parse_options po;
        po.max_depth = 10000;
        auto v = json::parse(r.body, ec, {}, po);
        BOOST_REQUIRE_MESSAGE(!ec && v.is_object(), "not a JSON object: " + r.body);
        return v.as_object();
    }
};

const char* kConfigMap = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","labels":{"app":"a"}},"data":{"k":"v"}})";

}  // namespace

BOOST_AUTO_TEST_CASE(request_info_paths) {
    struct Case {
        const char* method;
        const char* path;
        const char* query;
        bool resource;
        const char* group;
        const char* ns;
        const char* resourceName;
        const char* name;
        const char* sub;
        const char* verb;
    };
    const Case cases[] = {
        {"GET", "/api/v1/namespaces/default/pods", "", true, "", "default", "pods", "", "", "list"},
        {"GET", "/api/v1/namespaces/default/pods/p/status", "", true, "", "default", "pods", "p", "status", "get"},
        {"GET", "/api/v1/namespaces/default", "", true, "", "", "namespaces", "default", "", "get"},
        {"PUT", "/api/v1/namespaces/x/status", "", true, "", "", "namespaces", "x", "status", "update"},
        {"GET", "/apis/trainer.kubeflow.org/v1alpha1/trainjobs", "watch=true", true, "trainer.kubeflow.org", "",
         "trainjobs", "", "", "watch"},
        {"DELETE", "/apis/a.b/v1/namespaces/n/things", "", true, "a.b", "n", "things", "", "", "deletecollection"},
        {"PATCH", "/apis/a.b/v1/things/t", "", true, "a.b", "", "things", "t", "", "patch"},
        {"GET", "/apis/a.b/v1", "", false, "a.b", "", "", "", "", ""},
    };
    for (auto const& c : cases) {
        auto info = parseRequestInfo(c.method, c.path, parseQuery(c.query));
        BOOST_TEST_REQUIRE(info.has_value(), c.path);
        BOOST_TEST(info->resourceRequest == c.resource, c.path);
        BOOST_TEST(info->group == c.group, c.path);
        BOOST_TEST(info->ns == c.ns, c.path);
        BOOST_TEST(info->resource == c.resourceName, c.path);
        BOOST_TEST(info->name == c.name, c.path);
        BOOST_TEST(info->subresource == c.sub, c.path);
        if (c.resource) BOOST_TEST(info->verb == c.verb, c.path);
    }
    BOOST_TEST(!parseRequestInfo("GET", "/metrics", {}).has_value());
    auto q = parseQuery("labelSelector=app%3Da%2Cb+in+(x)&limit=2");
    BOOST_TEST(q["labelSelector"] == "app=a,b in (x)");
    BOOST_TEST(q["limit"] == "2");
}

BOOST_FIXTURE_TEST_CASE(authentication_and_public_paths, Fixture) {
    BOOST_TEST(call("GET", "/readyz", "", "", "").status == 200u);
    BOOST_TEST(parse(call("GET", "/version", "", "", "")).at("major") == "1");
    for (auto token : {"", "wrong"}) {
        auto r = call("GET", "/api/v1/namespaces", "", "", token);
        BOOST_TEST(r.status == 401u);
        auto s = parse(r);
        BOOST_TEST(s.at("kind") == "Status");
        BOOST_TEST(s.at("reason") == "Unauthorized");
        BOOST_TEST(s.at("code") == 401);
    }
}

BOOST_FIXTURE_TEST_CASE(discovery_lists_builtin_and_crd_resources, Fixture) {
    auto groups = parse(call("GET", "/apis"));
    std::string names;
    for (auto const& g : groups.at("groups").as_array()) names += std::string(g.at("name").as_string()) + " ";
    BOOST_TEST(names.find("trainer.kubeflow.org") != std::string::npos, names);
    BOOST_TEST(names.find("coordination.k8s.io") != std::string::npos, names);
    auto trainer = parse(call("GET", "/apis/trainer.kubeflow.org/v1alpha1"));
    bool sawTrainJob = false, sawStatus = false;
    for (auto const& r : trainer.at("resources").as_array()) {
        if (r.at("name") == "trainjobs") sawTrainJob = r.at("kind") == "TrainJob" && r.at("namespaced") == true;
        if (r.at("name") == "trainjobs/status") sawStatus = true;
    }
    BOOST_TEST(sawTrainJob);
    BOOST_TEST(sawStatus);
    BOOST_TEST(call("GET", "/apis/nope.example.com/v1").status == 404u);
    // A CRD created through the API is served at once.
    auto crd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
      "metadata":{"name":"widgets.example.com"},
      "spec":{"group":"example.com","scope":"Namespaced","names":{"kind":"Widget","plural":"widgets","singular":"widget",
        "shortNames":["wd"]},
        "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
          "properties":{"spec":{"type":"object","properties":{"size":{"type":"integer","default":3}}}}}}}]}})";
    BOOST_TEST(call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd).status == 201u);
    auto widgets = parse(call("GET", "/apis/example.com/v1"));
    BOOST_TEST(widgets.at("resources").as_array().at(0).at("shortNames").as_array().at(0) == "wd");
    auto created = call("POST", "/apis/example.com/v1/namespaces/default/widgets",
                        R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{}})");
    BOOST_TEST_REQUIRE(created.status == 201u, created.body);
    BOOST_TEST(parse(created).at("spec").at("size") == 3);  // the schema's default
    auto stored = parse(call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com"));
    BOOST_TEST(json::serialize(stored.at("status")).find("Established") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(create_get_list_and_errors, Fixture) {
    auto r = call("POST", "/api/v1/namespaces/default/configmaps", kConfigMap);
    BOOST_TEST_REQUIRE(r.status == 201u, r.body);
    auto cm = parse(r);
    BOOST_TEST(!cm.at("metadata").at("uid").as_string().empty());
    BOOST_TEST(cm.at("metadata").at("managedFields").as_array().at(0).at("manager") == "unit-test");

    auto dup = parse(call("POST", "/api/v1/namespaces/default/configmaps", kConfigMap));
    BOOST_TEST(dup.at("reason") == "AlreadyExists");
    BOOST_TEST(dup.at("message") == R"(configmaps "cm" already exists)");
    BOOST_TEST(dup.at("code") == 409);

    auto missing = parse(call("GET", "/api/v1/namespaces/default/configmaps/nope"));
    BOOST_TEST(missing.at("reason") == "NotFound");
    BOOST_TEST(missing.at("details").at("kind") == "configmaps");

    auto noNs = parse(call("POST", "/api/v1/namespaces/nope/configmaps", kConfigMap));
    BOOST_TEST(noNs.at("message") == R"(namespaces "nope" not found)");

    BOOST_TEST(call("POST", "/api/v1/namespaces/default/configmaps", "{not json").status == 400u);
    BOOST_TEST(call("POST", "/api/v1/namespaces/default/configmaps", "[1]").status == 400u);
    auto wrongKind = call("POST", "/api/v1/namespaces/default/configmaps",
                          R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}})");
    BOOST_TEST(wrongKind.status == 400u);
    // Protobuf bodies: decoded for built-in kinds (here not protobuf at all: 400), refused for custom resources.
    auto proto = call("POST", "/api/v1/namespaces/default/configmaps", kConfigMap, "application/vnd.kubernetes.protobuf");
    BOOST_TEST(proto.status == 400u);
    BOOST_TEST(parse(proto).at("message").as_string().starts_with("ConfigMap in version \"v1\" cannot be handled"));
    auto crProto = call("POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs", "k8s",
                        "application/vnd.kubernetes.protobuf");
    BOOST_TEST(crProto.status == 415u);

    auto list = parse(call("GET", "/api/v1/namespaces/default/configmaps?labelSelector=app%3Da"));
    BOOST_TEST(list.at("kind") == "ConfigMapList");
    BOOST_TEST(list.at("items").as_array().size() == 1u);
    BOOST_TEST(parse(call("GET", "/api/v1/configmaps?labelSelector=app%21%3Da")).at("items").as_array().empty());
    BOOST_TEST(call("GET", "/api/v1/configmaps?labelSelector=%3D%3D").status == 400u);
    BOOST_TEST(call("GET", "/api/v1/pods/x").status == 404u);  // a namespaced object needs its namespace
}

BOOST_FIXTURE_TEST_CASE(pagination_returns_every_item_once, Fixture) {
    for (int i = 0; i < 7; ++i)
        call("POST", "/api/v1/namespaces/default/configmaps",
             R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c)" + std::to_string(i) + R"("}})");
    std::vector<std::string> names;
    std::string cont;
    for (int page = 0; page < 10; ++page) {
        auto l = parse(call("GET", "/api/v1/namespaces/default/configmaps?limit=3" + (cont.empty() ? "" : "&continue=" + cont)));
        for (auto const& i : l.at("items").as_array()) names.emplace_back(i.at("metadata").at("name").as_string());
        auto* c = l.at("metadata").as_object().if_contains("continue");
        if (!c) break;
        cont = std::string(c->as_string());
    }
    BOOST_TEST(names.size() == 7u);
    BOOST_TEST(std::set<std::string>(names.begin(), names.end()).size() == 7u);
    BOOST_TEST(call("GET", "/api/v1/configmaps?limit=2&continue=%21%21").status == 400u);
}

BOOST_FIXTURE_TEST_CASE(update_patch_and_conflicts, Fixture) {
    auto cm = parse(call("POST", "/api/v1/namespaces/default/configmaps", kConfigMap));
    auto stale = cm;
    cm["data"].as_object()["k"] = "v2";
    auto u = call("PUT", "/api/v1/namespaces/default/configmaps/cm", json::serialize(cm));
    BOOST_TEST_REQUIRE(u.status == 200u, u.body);
    stale["data"].as_object()["k"] = "v3";
    auto c = parse(call("PUT", "/api/v1/namespaces/default/configmaps/cm", json::serialize(stale)));
    BOOST_TEST(c.at("reason") == "Conflict");
    BOOST_TEST(c.at("message").as_string().ends_with(
        "the object has been modified; please apply your changes to the latest version and try again"));

    auto m = call("PATCH", "/api/v1/namespaces/default/configmaps/cm", R"({"data":{"m":"1"}})", "application/merge-patch+json");
    BOOST_TEST_REQUIRE(m.status == 200u, m.body);
    BOOST_TEST(parse(m).at("data").at("m") == "1");
    auto j = call("PATCH", "/api/v1/namespaces/default/configmaps/cm", R"([{"op":"remove","path":"/data/m"}])",
                  "application/json-patch+json");
    BOOST_TEST_REQUIRE(j.status == 200u, j.body);
    BOOST_TEST(!parse(j).at("data").as_object().contains("m"));
    BOOST_TEST(call("PATCH", "/api/v1/namespaces/default/configmaps/cm", "{}", "text/plain").status == 415u);

    // Server-side apply: two managers on one field conflict until forced.
    auto apply = [&](const char* manager, const char* value, bool force) {
        std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ssa"},"data":{"k":")" +
                           std::string(value) + R"("}})";
        return call("PATCH", std::string("/api/v1/namespaces/default/configmaps/ssa?fieldManager=") + manager +
                                 (force ? "&force=true" : ""),
                    body, "application/apply-patch+yaml");
    };
    BOOST_TEST(apply("one", "a", false).status == 201u);
    BOOST_TEST(apply("one", "a", false).status == 200u);
    auto conflict = apply("two", "b", false);
    BOOST_TEST(conflict.status == 409u);
    auto cs = parse(conflict);
    BOOST_TEST(cs.at("message") == R"(Apply failed with 1 conflict: conflict with "one": .data.k)");
    BOOST_TEST(cs.at("details").at("causes").as_array().at(0).at("field") == ".data.k");
    BOOST_TEST(apply("two", "b", true).status == 200u);
    auto noManager = call("PATCH", "/api/v1/namespaces/default/configmaps/ssa", "{}", "application/apply-patch+yaml");
    BOOST_TEST(noManager.status == 422u);
    BOOST_TEST(parse(noManager).at("message") ==
               R"(PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch)");
}

BOOST_FIXTURE_TEST_CASE(delete_finalizers_and_namespaces, Fixture) {
    call("POST", "/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}})");
    auto held = call("POST", "/api/v1/namespaces/team/configmaps",
                     R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held","finalizers":["x/y"]}})");
    BOOST_TEST_REQUIRE(held.status == 201u, held.body);
    auto d = call("DELETE", "/api/v1/namespaces/team/configmaps/held");
    BOOST_TEST(d.status == 200u);
    BOOST_TEST(parse(d).at("metadata").as_object().contains("deletionTimestamp"));
    BOOST_TEST(call("GET", "/api/v1/namespaces/team/configmaps/held").status == 200u);
    auto p = call("PATCH", "/api/v1/namespaces/team/configmaps/held", R"({"metadata":{"finalizers":null}})",
                  "application/merge-patch+json");
    BOOST_TEST(p.status == 200u, p.body);
    BOOST_TEST(call("GET", "/api/v1/namespaces/team/configmaps/held").status == 404u);

    BOOST_TEST(call("POST", "/api/v1/namespaces/team/configmaps", kConfigMap).status == 201u);
    auto bad = call("DELETE", "/api/v1/namespaces/team/configmaps/cm", R"({"propagationPolicy":"Sometimes"})");
    BOOST_TEST(bad.status == 422u);
    auto gone = parse(call("DELETE", "/api/v1/namespaces/team"));
    BOOST_TEST(gone.at("status") == "Success");
    BOOST_TEST(call("GET", "/api/v1/namespaces/team/configmaps/cm").status == 404u);
}

// Bookmarks and timeoutSeconds on the watch's clock (ApiServerOptions::steadyClock), moved by
// hand: an idle watch sends a BOOKMARK once bookmarkInterval (1 s) has passed without an event,
// never before; an event restarts the interval; the stream ends at timeoutSeconds.
BOOST_AUTO_TEST_CASE(watch_bookmarks_and_timeout_follow_the_watch_clock) {
    using namespace std::chrono_literals;
    auto at = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::time_point{} + 1h);
    auto o = withToken("secret");
    o.steadyClock = [at] { return *at; };
    Fixture f(o);
    auto list = Fixture::parse(f.call("GET", "/api/v1/namespaces/default/configmaps"));
    std::string rv(list.at("metadata").at("resourceVersion").as_string());
    auto w = f.call("GET", "/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&timeoutSeconds=10"
                           "&resourceVersion=" + rv);
    BOOST_TEST_REQUIRE(static_cast<bool>(w.stream));
    // The event types of one poll, space-separated ("" for none), and whether it ended the stream.
    auto poll = [&] {
        auto chunk = w.stream->poll();
        std::string types;
        std::istringstream lines(chunk.data);
        for (std::string line; std::getline(lines, line);)
            types += (types.empty() ? "" : " ") + std::string(json::parse(line).at("type").as_string());
        return std::make_pair(types, chunk.done);
    };
    struct Step {
        std::chrono::milliseconds advance;
        bool change;  // a ConfigMap written before the poll
        std::string events;
        bool done;
    };
    const Step steps[] = {
        {0ms, false, "", false},        {999ms, false, "", false},       {1ms, false, "BOOKMARK", false},  // 1 s idle
        {500ms, false, "", false},      {0ms, true, "ADDED", false},     {999ms, false, "", false},  // the event restarts it
        {1ms, false, "BOOKMARK", false}, {7499ms, false, "BOOKMARK", false},                         // 9.999 s
        {1ms, false, "", true},                                                                       // timeoutSeconds
    };
    std::chrono::milliseconds elapsed{0};
    for (auto const& step : steps) {
        *at += step.advance;
        elapsed += step.advance;
        if (step.change) BOOST_REQUIRE(f.call("POST", "/api/v1/namespaces/default/configmaps", kConfigMap).status == 201u);
        auto [events, done] = poll();
        BOOST_TEST(events == step.events, "at " << elapsed.count() << " ms");
        BOOST_TEST(done == step.done, "at " << elapsed.count() << " ms");
    }
}

BOOST_FIXTURE_TEST_CASE(watch_streams_changes_and_expires, Fixture) {
    auto list = parse(call("GET", "/api/v1/namespaces/default/configmaps"));
    std::string rv(list.at("metadata").at("resourceVersion").as_string());
    auto w = call("GET", "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=30&resourceVersion=" + rv);
    BOOST_TEST_REQUIRE(static_cast<bool>(w.stream));
    call("POST", "/api/v1/namespaces/default/configmaps", kConfigMap);
    call("DELETE", "/api/v1/namespaces/default/configmaps/cm");
    call("POST", "/api/v1/namespaces/default/secrets",
         R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"not-a-configmap"}})");
    auto chunk = w.stream->poll();
    BOOST_TEST(!chunk.done);
    auto first = chunk.data.find('\n');
    BOOST_TEST_REQUIRE(first != std::string::npos);
    auto added = json::parse(chunk.data.substr(0, first)).as_object();
    BOOST_TEST(added.at("type") == "ADDED");
    BOOST_TEST(added.at("object").at("metadata").at("name") == "cm");
    BOOST_TEST(chunk.data.find("\"DELETED\"") != std::string::npos);
    BOOST_TEST(chunk.data.find("not-a-configmap") == std::string::npos);
    BOOST_TEST(call("GET", "/api/v1/configmaps?watch=1&resourceVersion=abc").status == 400u);
}
