// The embedded API server answers a store read that failed with 500 InternalError, never 404 or
// an empty list (issue 12 item 6): on a MemoryStore behind a wrapper that answers Error for
// chosen reads, as SqliteStore does when SQLite fails.
#include <boost/test/unit_test.hpp>

#include "core/apiserver/api_server.hpp"
#include "core/controller/admission_control.hpp"
#include "core/store/memory_store.hpp"
#include "test/support/forwarding_store.hpp"

#include <set>
#include <string>

using namespace trainer::core;
using namespace trainer::core::apiserver;

namespace {

const std::string kLocked = "store: sqlite step: database is locked";
const ObjectKey kConfigMap{"v1", "ConfigMap", "default", "cm"};

// Forwards to a MemoryStore; point reads of `failing` and lists of `failingKinds` answer Error.
class FailingStore : public trainer::test::ForwardingStore {
public:
    explicit FailingStore(MemoryStore& s) : ForwardingStore(s), s_(s) {}
    ReadResult get(const ObjectKey& k) const override {
        if (failing.count(k)) return ReadResult::error(kLocked);
        return s_.get(k);
    }
    ListResult list(const std::string& a, const std::string& k, const std::optional<std::string>& ns) const override {
        if (failingKinds.count(k)) return ListResult::failure(kLocked);
        return s_.list(a, k, ns);
    }

    std::set<ObjectKey> failing;
    std::set<std::string> failingKinds;

private:
    MemoryStore& s_;
};

ApiServerOptions withToken() {
    ApiServerOptions o;
    o.token = "secret";
    return o;
}

struct Fixture {
    MemoryStore memory;
    FailingStore store{memory};
    ResourceRegistry registry;
    PluginRegistry plugins;
    Framework framework{plugins};
    ApiServerOptions options = withToken();
    ApiServer api{store, registry,
                  [this](json::object& obj, const json::object* old) {
                      return controller::admit(framework, obj, old, store, std::chrono::system_clock::now());
                  },
                  options};
    Fixture() {
        BOOST_REQUIRE(api.initialize().empty());
        BOOST_REQUIRE(call("POST", "/api/v1/namespaces/default/configmaps",
                           R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"k":"v"}})")
                          .status == 201u);
    }
    server::Response call(const std::string& method, const std::string& target, const std::string& body = "",
                          const std::string& contentType = "application/json") {
        server::Request r;
        r.method = method;
        auto q = target.find('?');
        r.path = target.substr(0, q);
        if (q != std::string::npos) r.query = target.substr(q + 1);
        r.headers.emplace_back("authorization", "Bearer secret");
        r.headers.emplace_back("content-type", contentType);
        r.body = body;
        return api.handle(r);
    }
    // A 500 whose body is an InternalError Status carrying the store's message.
    static void expectInternal(const server::Response& r) {
        BOOST_TEST(r.status == 500u, r.body);
        auto v = json::parse(r.body);
        BOOST_TEST(v.at("kind") == "Status");
        BOOST_TEST(v.at("reason") == "InternalError");
        BOOST_TEST(v.at("code") == 500);
        BOOST_TEST(std::string(v.at("message").as_string()).find("database is locked") != std::string::npos, r.body);
    }
    std::string resourceVersion() const {
        return std::string(memory.get(kConfigMap).object.at("metadata").at("resourceVersion").as_string());
    }
};

const std::string kItem = "/api/v1/namespaces/default/configmaps/cm";
const std::string kList = "/api/v1/namespaces/default/configmaps";

}  // namespace

BOOST_AUTO_TEST_SUITE(read_errors)

BOOST_FIXTURE_TEST_CASE(a_failed_get_is_500_not_404, Fixture) {
    store.failing = {kConfigMap};
    expectInternal(call("GET", kItem));
    BOOST_TEST(call("GET", kList + "/other").status == 404u);  // absence is still 404
    store.failing.clear();
    BOOST_TEST(call("GET", kItem).status == 200u);
}

BOOST_FIXTURE_TEST_CASE(a_failed_list_or_watch_start_is_500_not_empty, Fixture) {
    store.failingKinds = {"ConfigMap"};
    expectInternal(call("GET", kList));
    expectInternal(call("GET", kList + "?watch=true"));
    expectInternal(call("DELETE", kList));  // deletecollection lists first
    store.failingKinds.clear();
    BOOST_TEST(json::parse(call("GET", kList).body).at("items").as_array().size() == 1u);
}

// Writes that read first: an update is not "not found", an apply is not a create.
BOOST_FIXTURE_TEST_CASE(a_write_whose_read_fails_is_500_and_writes_nothing, Fixture) {
    auto rv = resourceVersion();
    store.failing = {kConfigMap};
    expectInternal(call("PUT", kItem,
                        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","resourceVersion":")" + rv +
                            R"("},"data":{"k":"changed"}})"));
    expectInternal(call("PATCH", kItem + "?fieldManager=test",
                        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"k":"applied"}})",
                        "application/apply-patch+yaml"));
    expectInternal(call("PATCH", kItem, R"({"data":{"k":"merged"}})", "application/merge-patch+json"));
    store.failing.clear();
    BOOST_TEST(resourceVersion() == rv);
    BOOST_TEST(memory.get(kConfigMap).object.at("data").at("k") == "v");
}

// Admission reads the cluster (the TrainJob's runtime): a failed read there is neither an
// admission nor a denial (403), but a 500 the client retries.
BOOST_FIXTURE_TEST_CASE(admission_that_cannot_read_the_cluster_is_500_not_a_denial, Fixture) {
    const ObjectKey runtime{"trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime", "", "rt"};
    store.failing = {runtime};
    const std::string job = R"({"apiVersion":"trainer.kubeflow.org/v1alpha1","kind":"TrainJob",
        "metadata":{"name":"tj"},"spec":{"runtimeRef":{"name":"rt"}}})";
    auto r = call("POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs", job);
    expectInternal(r);
    BOOST_TEST(std::string(r.body).find("ClusterTrainingRuntime rt") != std::string::npos, r.body);
    BOOST_TEST(memory.get(ObjectKey{"trainer.kubeflow.org/v1alpha1", "TrainJob", "default", "tj"}).notFound());
    // Readable and absent: the webhook's denial, as before.
    store.failing.clear();
    BOOST_TEST(call("POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs", job).status == 403u);
}

BOOST_AUTO_TEST_SUITE_END()
