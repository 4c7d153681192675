// Loads the built torch.so through the C ABI: descriptor, claims, tables; then the file on the
// real host (TrainerSDK::testing) for one EnforceMLPolicy on conformance case 04.
#define BOOST_TEST_MODULE torch_module_test
#include <boost/test/unit_test.hpp>

#include "../../support/plugin_test.hpp"

#include <dlfcn.h>

#include <set>

using trainer::sdk::testing::Host;
namespace json = boost::json;

namespace {

const trn_plugin_descriptor* load(Host& host) {
    std::string error;
    auto* d = host.load(TORCH_MODULE_PATH, error);
    BOOST_TEST_REQUIRE(d != nullptr, error);
    return d;
}

}  // namespace

BOOST_AUTO_TEST_CASE(descriptor) {
    Host host;
    auto* d = load(host);
    BOOST_TEST_REQUIRE(d != nullptr);
    BOOST_TEST(d->struct_size >= sizeof(trn_plugin_descriptor));
    BOOST_TEST(d->abi_version == TRN_ABI_VERSION);
    BOOST_TEST(std::string(d->name) == "torch");
    std::set<std::string> claims(d->claims, d->claims + d->claim_count);
    std::set<std::string> want{"mlPolicy.torch",     "env:PET_NNODES",      "env:PET_NPROC_PER_NODE",
                               "env:PET_NODE_RANK",  "env:PET_MASTER_ADDR", "env:PET_MASTER_PORT"};
    BOOST_TEST(claims == want, boost::test_tools::per_element());
    BOOST_TEST(d->claim_count == 6u);
    BOOST_TEST(d->custom_validation != nullptr);
    BOOST_TEST(d->enforce_ml_policy != nullptr);
    BOOST_TEST(d->enforce_pod_group_policy == nullptr);
    BOOST_TEST(d->enforce_pod_spec == nullptr);
    BOOST_TEST(d->pre_component_builder == nullptr);
    BOOST_TEST(d->component_builder == nullptr);
    BOOST_TEST(d->trainjob_status == nullptr);
    BOOST_TEST(d->watch_extension == nullptr);
    BOOST_TEST((d->flags & TRN_PLUGIN_THREAD_SAFE) != 0u);
}

BOOST_AUTO_TEST_CASE(enforce_through_abi_case_04) {
    // The file as the operator loads it, on the Info the operator builds for case 04.
    trainer::sdk::testing::RealHost real;
    BOOST_TEST_REQUIRE(real.addFile(TORCH_MODULE_PATH), (real.rejected().empty() ? "" : real.rejected()[0].reason));
    auto cs = trainer::test::readCase("04-torch-numnodes-and-int-numprocpernode.json");
    auto out = real.run(trainer::sdk::testing::Hook::EnforceMLPolicy,
                        trainer::test::infoFor(cs.at("trainJob").as_object(), cs.at("runtimes").as_array()[0].as_object()));
    BOOST_TEST_REQUIRE(out.ok(), out.describe());
    BOOST_TEST(trainer::test::podSetCount(out.info, "node") == 30);
    auto const& c = trainer::test::container(out.info, "node", "node");
    auto env = [&](std::string_view n) {
        auto* e = trainer::sdk::findByKey(trainer::sdk::getArray(c, "env"), "name", n);
        return e ? json::serialize(*e) : "<unset>";
    };
    BOOST_TEST(env("PET_NNODES") == R"({"name":"PET_NNODES","value":"30"})");
    BOOST_TEST(env("PET_NPROC_PER_NODE") == R"({"name":"PET_NPROC_PER_NODE","value":"3"})");
    BOOST_TEST(env("PET_MASTER_ADDR") == R"({"name":"PET_MASTER_ADDR","value":"test-job-node-0-0.test-job"})");
    BOOST_TEST(env("PET_MASTER_PORT") == R"({"name":"PET_MASTER_PORT","value":"29500"})");
    BOOST_TEST(trainer::sdk::testing::containerPorts(c) == std::vector<int64_t>{29500}, boost::test_tools::per_element());

    // Bad input through the raw ABI: an error diagnostic naming the plugin, never a crash.
    Host host;
    auto* d = load(host);
    BOOST_TEST_REQUIRE(d != nullptr);
    auto* inst = d->create(host.call(), trn_str{"{}", 2});
    BOOST_TEST_REQUIRE(inst != nullptr);
    BOOST_TEST(d->enforce_ml_policy->enforce(inst, host.call(), trn_str{"[1,2", 4}) == TRN_ERROR);
    BOOST_TEST_REQUIRE(host.errors().size() == 1u);
    BOOST_TEST(host.errors()[0].message.find("torch") != std::string::npos);
    d->destroy(inst);
}
