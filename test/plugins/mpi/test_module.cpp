// Loads the built mpi.so as the host would and checks its descriptor and one hook call.
#include <boost/test/unit_test.hpp>

#include <trainer/testing.hpp>

#include <dlfcn.h>

#include <cstdlib>

#include <set>
#include <string>
#include <vector>

namespace sdk = trainer::sdk;
namespace json = boost::json;

namespace {

struct Module {
    void* handle = dlopen(MPI_MODULE_PATH, RTLD_NOW | RTLD_LOCAL);
    // Never unloaded (ABI rule 8): the descriptor points into the library.
};

const trn_plugin_descriptor* descriptor(sdk::testing::Host& host) {
    static Module m;
    BOOST_TEST_REQUIRE(m.handle != nullptr, dlerror());
    auto entry = reinterpret_cast<trn_plugin_entry_fn>(dlsym(m.handle, TRN_ENTRY_SYMBOL));
    BOOST_TEST_REQUIRE(entry != nullptr);
    trn_host_info info{sizeof(trn_host_info), TRN_ABI_ENCODE(1, 0), TRN_ABI_ENCODE(1, 0xffff),
                       sdk::toAbi("0.1.0"), host.api()};
    return entry(&info);
}

}  // namespace

BOOST_AUTO_TEST_CASE(module_descriptor) {
    sdk::testing::Host host;
    const trn_plugin_descriptor* d = descriptor(host);
    BOOST_TEST_REQUIRE(d != nullptr);
    BOOST_TEST(d->struct_size >= sizeof(trn_plugin_descriptor));
    BOOST_TEST(d->abi_version == TRN_ABI_VERSION);
    BOOST_TEST(std::string(d->name) == "mpi");
    BOOST_TEST(std::string(d->version) == "0.1.0");
    BOOST_TEST((d->flags & TRN_PLUGIN_THREAD_SAFE) != 0u);
    std::set<std::string> claims(d->claims, d->claims + d->claim_count);
    std::set<std::string> want{"mlPolicy.mpi",
                               "env:OMPI_MCA_orte_default_hostfile",
                               "env:OMPI_MCA_plm_rsh_args",
                               "env:OMPI_MCA_orte_keep_fqdn_hostnames",
                               "env:OMPI_MCA_orte_set_default_slots",
                               "volume:mpi-ssh-auth",
                               "volume:mpi-hostfile"};
    BOOST_TEST(claims == want);
    BOOST_TEST(d->claim_count == 7u);
    BOOST_TEST(d->custom_validation != nullptr);
    BOOST_TEST(d->enforce_ml_policy != nullptr);
    BOOST_TEST(d->component_builder != nullptr);
    BOOST_TEST(d->enforce_pod_group_policy == nullptr);
    BOOST_TEST(d->enforce_pod_spec == nullptr);
    BOOST_TEST(d->pre_component_builder == nullptr);
    BOOST_TEST(d->trainjob_status == nullptr);
    BOOST_TEST_REQUIRE(d->watch_extension != nullptr);
    BOOST_TEST_REQUIRE(d->watch_extension->watch_count == 2u);
    std::set<std::string> kinds;
    for (size_t i = 0; i < 2; ++i) {
        const trn_watch* w = d->watch_extension->watches[i];
        BOOST_TEST(std::string(w->api_version) == "v1");
        BOOST_TEST(w->mode == TRN_WATCH_OWNED);
        BOOST_TEST(w->match_field == nullptr);
        kinds.insert(w->kind);
    }
    BOOST_TEST((kinds == std::set<std::string>{"ConfigMap", "Secret"}));
}

BOOST_AUTO_TEST_CASE(module_only_exports_entry) {
    Module m;
    BOOST_TEST_REQUIRE(m.handle != nullptr);
    BOOST_TEST(dlsym(m.handle, TRN_ENTRY_SYMBOL) != nullptr);
    // Every defined dynamic symbol other than the entry point (ignoring absolute/version ones).
    std::string cmd = "nm -D --defined-only " + std::string(MPI_MODULE_PATH) +
                      " | grep -v ' A ' | grep -v ' trn_plugin_entry$' | grep -q .";
    BOOST_TEST(std::system(cmd.c_str()) != 0, "extra exported symbols in " MPI_MODULE_PATH);
}

BOOST_AUTO_TEST_CASE(module_hooks_through_the_abi) {
    sdk::testing::Host host;
    const trn_plugin_descriptor* d = descriptor(host);
    BOOST_TEST_REQUIRE(d != nullptr);
    trn_instance* inst = d->create(host.call(), sdk::toAbi("{}"));
    BOOST_TEST_REQUIRE(inst != nullptr);
    std::string info = R"({"infoVersion":1,
        "trainJob":{"metadata":{"name":"j","namespace":"ns","uid":"u"},"spec":{"trainer":{"numNodes":2}}},
        "runtimePolicy":{"mlPolicy":{"mpi":{"numProcPerNode":1,"mpiImplementation":"Intel",
                         "sshAuthMountPath":"/root/.ssh","runLauncherAsNode":false}}},
        "jobSetSpec":{"replicatedJobs":[]},
        "podSets":[{"name":"launcher","count":1,"containers":[{"name":"node","env":[],"volumeMounts":[]}],
                    "volumes":[],"endpoints":[]}]})";
    // The unsupported implementation fails with the name, not an address.
    BOOST_TEST(d->enforce_ml_policy->enforce(inst, host.call(), sdk::toAbi(info)) == TRN_ERROR);
    BOOST_TEST_REQUIRE(host.errors().size() == 1u);
    BOOST_TEST(host.errors()[0].message == "MPI implementation for Intel doesn't supported");
    host.clear();
    // Bad input never crashes: an error diagnostic naming the plugin.
    BOOST_TEST(d->enforce_ml_policy->enforce(inst, host.call(), sdk::toAbi("not json")) == TRN_ERROR);
    BOOST_TEST_REQUIRE(host.errors().size() == 1u);
    BOOST_TEST(host.errors()[0].message.find("mpi") != std::string::npos);
    host.clear();
    // Build emits the Secret and the ConfigMap.
    BOOST_TEST(d->component_builder->build(inst, host.call(), sdk::toAbi(info)) == TRN_OK);
    BOOST_TEST(host.emitted.size() == 2u);
    d->destroy(inst);
}
