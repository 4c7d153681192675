// Loads the built torch.so through the C ABI: descriptor, claims, tables, and one
// EnforceMLPolicy call on conformance case 04.
#define BOOST_TEST_MODULE torch_module_test
#include <boost/test/unit_test.hpp>

#include "ml_test_kit.hpp"

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
    Host host;
    auto* d = load(host);
    BOOST_TEST_REQUIRE(d != nullptr);
    auto* inst = d->create(host.call(), trn_str{"{}", 2});
    BOOST_TEST_REQUIRE(inst != nullptr);
    auto cs = trainer::plugins::mltest::readCase("04-torch-numnodes-and-int-numprocpernode.json");
    std::string info = json::serialize(trainer::plugins::mltest::buildInfo(cs.at("runtimes").as_array()[0].as_object(),
                                                                           cs.at("trainJob").as_object()));
    BOOST_TEST(d->enforce_ml_policy->enforce(inst, host.call(), trn_str{info.data(), info.size()}) == TRN_OK);
    std::map<std::string, std::string> edits;
    for (auto const& e : host.emitted) edits[std::string(e.at("path").as_string())] = json::serialize(e.at("value"));
    BOOST_TEST(edits["/podSets/node/count"] == "30");
    BOOST_TEST(edits["/podSets/node/containers/node/env/PET_NNODES"] == R"({"name":"PET_NNODES","value":"30"})");
    BOOST_TEST(edits["/podSets/node/containers/node/env/PET_NPROC_PER_NODE"] == R"({"name":"PET_NPROC_PER_NODE","value":"3"})");
    BOOST_TEST(edits["/podSets/node/containers/node/env/PET_MASTER_ADDR"] == R"({"name":"PET_MASTER_ADDR","value":"test-job-node-0-0.test-job"})");
    BOOST_TEST(edits["/podSets/node/containers/node/env/PET_MASTER_PORT"] == R"({"name":"PET_MASTER_PORT","value":"29500"})");
    BOOST_TEST(edits["/podSets/node/containers/node/ports/29500"] == R"({"containerPort":29500})");
    BOOST_TEST(host.errors().empty());

    // Bad input: an error diagnostic naming the plugin, never a crash.
    host.clear();
    BOOST_TEST(d->enforce_ml_policy->enforce(inst, host.call(), trn_str{"[1,2", 4}) == TRN_ERROR);
    BOOST_TEST_REQUIRE(host.errors().size() == 1u);
    BOOST_TEST(host.errors()[0].message.find("torch") != std::string::npos);
    d->destroy(inst);
}
