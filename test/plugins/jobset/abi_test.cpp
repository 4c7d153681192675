// ABI-level test: dlopen the built jobset.so and check its descriptor and one hook.
#define BOOST_TEST_MODULE jobset_abi_test
#include <boost/test/unit_test.hpp>

#include <trainer/testing.hpp>

#include <dlfcn.h>

#include <set>
#include <string>

namespace sdk = trainer::sdk;
namespace json = boost::json;

namespace {

// Never closed: plugin libraries stay loaded for the life of the process (ABI rule 8).
struct Library {
    void* handle = dlopen(JOBSET_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
};

const trn_plugin_descriptor* entry(Library& lib, sdk::testing::Host& host) {
    BOOST_REQUIRE_MESSAGE(lib.handle, "dlopen failed: " << dlerror());
    auto fn = reinterpret_cast<trn_plugin_entry_fn>(dlsym(lib.handle, TRN_ENTRY_SYMBOL));
    BOOST_REQUIRE(fn);
    static trn_host_info info{};
    info.struct_size = sizeof(trn_host_info);
    info.abi_min = TRN_ABI_ENCODE(1, 0);
    info.abi_max = TRN_ABI_ENCODE(1, 0xffff);
    info.host_version = sdk::toAbi("test");
    info.api = host.api();
    return fn(&info);
}

}  // namespace

BOOST_AUTO_TEST_CASE(descriptor) {
    Library lib;
    sdk::testing::Host host;
    const trn_plugin_descriptor* d = entry(lib, host);
    BOOST_REQUIRE(d);
    BOOST_TEST(d->struct_size == sizeof(trn_plugin_descriptor));
    BOOST_TEST(d->abi_version == TRN_ABI_VERSION);
    BOOST_TEST(std::string(d->name) == "jobset");
    BOOST_TEST(d->priority == 0);
    BOOST_TEST((d->flags & TRN_PLUGIN_THREAD_SAFE) != 0u);
    BOOST_REQUIRE_EQUAL(d->claim_count, 1u);
    BOOST_TEST(std::string(d->claims[0]) == "kind:jobset.x-k8s.io/v1alpha2/JobSet");
    BOOST_TEST(d->create);
    BOOST_TEST(d->destroy);
    // Tables exactly for the implemented extension points.
    BOOST_TEST(d->custom_validation != nullptr);
    BOOST_TEST(d->pre_component_builder != nullptr);
    BOOST_TEST(d->component_builder != nullptr);
    BOOST_TEST(d->trainjob_status != nullptr);
    BOOST_TEST(d->watch_extension != nullptr);
    BOOST_TEST(d->enforce_ml_policy == nullptr);
    BOOST_TEST(d->enforce_pod_group_policy == nullptr);
    BOOST_TEST(d->enforce_pod_spec == nullptr);
    BOOST_REQUIRE_EQUAL(d->watch_extension->watch_count, 1u);
    const trn_watch* w = d->watch_extension->watches[0];
    BOOST_TEST(std::string(w->api_version) == "jobset.x-k8s.io/v1alpha2");
    BOOST_TEST(std::string(w->kind) == "JobSet");
    BOOST_TEST(w->mode == TRN_WATCH_OWNED);
    BOOST_TEST(w->match_field == nullptr);
}

BOOST_AUTO_TEST_CASE(hooks_through_the_boundary) {
    Library lib;
    sdk::testing::Host host;
    const trn_plugin_descriptor* d = entry(lib, host);
    BOOST_REQUIRE(d);
    trn_instance* self = d->create(host.call(), sdk::toAbi("{}"));
    BOOST_REQUIRE(self);

    // Status: the JobSet is missing and the TrainJob is not finished → error diagnostic.
    std::string in = R"({"infoVersion":1,"trainJob":{"metadata":{"name":"j","namespace":"n"},"spec":{}}})";
    BOOST_TEST(d->trainjob_status->status(self, host.call(), sdk::toAbi(in)) == TRN_ERROR);
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].message == "jobsets.jobset.x-k8s.io \"j\" not found");
    host.clear();

    // Not JSON → an error diagnostic naming the plugin, never a crash.
    BOOST_TEST(d->component_builder->build(self, host.call(), sdk::toAbi("not json")) == TRN_ERROR);
    BOOST_REQUIRE_EQUAL(host.errors().size(), 1u);
    BOOST_TEST(host.errors()[0].message.find("jobset") != std::string::npos);
    host.clear();

    // Status found → one emit of the status object.
    host.cluster.push_back(json::parse(R"({"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet",
        "metadata":{"name":"j","namespace":"n"},"status":{"replicatedJobsStatus":[{"name":"node","active":1}]}})").as_object());
    BOOST_TEST(d->trainjob_status->status(self, host.call(), sdk::toAbi(in)) == TRN_OK);
    BOOST_REQUIRE_EQUAL(host.emitted.size(), 1u);
    BOOST_TEST(host.emitted[0].at("jobsStatus").as_array()[0].at("active").as_int64() == 1);
    d->destroy(self);
}
