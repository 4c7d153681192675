// The script text (flux_test.go TestGenerateRange, TestGenerateHostlist, TestGetOriginalCommand)
// and the embedded templates, which must be upstream's bytes.
#include <boost/test/unit_test.hpp>

#include "../../support/plugin_test.hpp"

#include "scripts.hpp"
#include "templates.hpp"

#include <openssl/evp.h>

#include <array>
#include <cstdio>

namespace flux = trainer::plugins::flux;
namespace json = boost::json;
using trainer::sdk::Info;

namespace {

// Git's blob id of `content` (what `git hash-object` prints).
std::string gitBlobId(std::string_view content) {
    std::string blob = "blob " + std::to_string(content.size()) + '\0' + std::string(content);
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int len = 0;
    BOOST_TEST_REQUIRE(EVP_Digest(blob.data(), blob.size(), md.data(), &len, EVP_sha1(), nullptr) == 1);
    std::string hex;
    for (unsigned int i = 0; i < len; ++i) {
        char b[3];
        std::snprintf(b, sizeof b, "%02x", md[i]);
        hex += b;
    }
    return hex;
}

Info info(const json::object& node, const json::value& trainerSpec, json::object flux = {}) {
    auto runtime = trainer::test::makeRuntime(json::object{{"numNodes", 1}, {"flux", flux}}, node);
    return Info(trainer::test::infoFor(trainer::test::makeTrainJob(trainerSpec), runtime));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scripts)

BOOST_AUTO_TEST_CASE(templates_are_upstreams_bytes) {
    // Blob ids of pkg/runtime/framework/plugins/flux/templates/* at upstream 8c0f5059 (`git ls-tree`).
    BOOST_TEST(gitBlobId(flux::brokerTemplate()) == "970ed4c46f935dea7d002c568fe33c3165a2d440");
    BOOST_TEST(gitBlobId(flux::entrypointTemplate()) == "a985d13c66ce0a3102964a269b35646af48ec488");
    BOOST_TEST(gitBlobId(flux::initTemplate()) == "3810cc0f71827f2d10f5229d8bfe9734a40b6959");
}

BOOST_AUTO_TEST_CASE(generate_range) {
    BOOST_TEST(flux::generateRange(1, 0) == "0");
    BOOST_TEST(flux::generateRange(4, 0) == "0-3");
    BOOST_TEST(flux::generateRange(3, 10) == "10-12");
    BOOST_TEST(flux::generateRange(0, 0) == "0--1");  // numNodes 0, as upstream
}

BOOST_AUTO_TEST_CASE(generate_hostlist) {
    BOOST_TEST(flux::generateHostlist("lammps-job", 1) == "lammps-job-node-0-[0]");
    BOOST_TEST(flux::generateHostlist("flux-cluster", 4) == "flux-cluster-node-0-[0-3]");
    BOOST_TEST(flux::generateHostlist("", 2) == "-node-0-[0-1]");
}

BOOST_AUTO_TEST_CASE(original_command) {
    json::object node{{"name", "node"}, {"command", json::array{"torchrun", "main.py"}}, {"args", json::array{"--rt"}}};
    // flux_test.go: "full command and args", "command and args with extra spaces".
    BOOST_TEST(flux::originalCommand(info(node, json::object{{"command", json::array{"python"}},
                                                             {"args", json::array{"train.py", "--epochs", "10"}}})) ==
               "python train.py --epochs 10");
    BOOST_TEST(flux::originalCommand(info(node, json::object{{"command", json::array{"  python  "}},
                                                             {"args", json::array{" script.py "}}})) ==
               "python    script.py");
    // The runtime's command when the TrainJob has none; the runtime's args are never part of it.
    BOOST_TEST(flux::originalCommand(info(node, json::object{})) == "torchrun main.py");
    BOOST_TEST(flux::originalCommand(info(node, nullptr)) == "torchrun main.py");
    BOOST_TEST(flux::originalCommand(info(node, json::object{{"args", json::array{"-x"}}})) == "torchrun main.py -x");
    // A present but empty TrainJob command still replaces the runtime's (Go: non-nil slice).
    BOOST_TEST(flux::originalCommand(info(node, json::object{{"command", json::array{}}})) == "");
    BOOST_TEST(flux::originalCommand(info(json::object{{"name", "node"}}, json::object{})) == "");
}

BOOST_AUTO_TEST_CASE(trim_space_is_gos) {
    BOOST_TEST(flux::trimSpace(" \t\n\v\f\r a b \r\n") == "a b");
    BOOST_TEST(flux::trimSpace("\xC2\xA0x\xE3\x80\x80") == "x");  // NBSP, ideographic space
    BOOST_TEST(flux::trimSpace("\xE2\x80\x8Bx") == "\xE2\x80\x8Bx");  // zero-width space is not space
    BOOST_TEST(flux::trimSpace("   ") == "");
}

BOOST_AUTO_TEST_CASE(sprintf_fills_s_verbs_in_order) {
    BOOST_TEST(flux::sprintfS("a=%s b=%s %%p", {"1", "%p"}) == "a=1 b=%p %p");
    BOOST_TEST(flux::sprintfS("%s-%s", {"x"}) == "x-%!s(MISSING)");
}

BOOST_AUTO_TEST_CASE(broker_settings_from_runtime_then_trainjob_env) {
    json::object node{{"name", "node"},
                      {"env", json::array{json::object{{"name", "FLUX_QUEUE_POLICY"}, {"value", "easy"}},
                                          json::object{{"name", "FLUX_NETWORK_DEVICE"}, {"value", "eth1"}},
                                          json::object{{"name", "FLUX_VIEW_IMAGE"},
                                                       {"valueFrom", json::object{{"fieldRef", json::object{}}}}}}}};
    json::object trainer{{"env", json::array{json::object{{"name", "FLUX_NETWORK_DEVICE"}, {"value", "ib0"}},
                                             json::object{{"name", "OTHER"}, {"value", "x"}}}}};
    auto s = flux::brokerSettings(info(node, trainer));
    BOOST_TEST(s.queuePolicy == "easy");
    BOOST_TEST(s.networkDevice == "ib0");
    BOOST_TEST(s.viewImage == "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy");  // valueFrom: skipped
    // A TrainJob entry without `value` sets "" (Go's EnvVar.Value is a plain string).
    json::object blank{{"env", json::array{json::object{{"name", "FLUX_QUEUE_POLICY"}}}}};
    BOOST_TEST(flux::brokerSettings(info(node, blank)).queuePolicy == "");
}

BOOST_AUTO_TEST_CASE(broker_config_lines) {
    flux::BrokerSettings s;
    s.networkDevice = "ib0";
    s.queuePolicy = "easy";
    std::string toml = flux::brokerConfig("job", "ns", "job-node-0-[0-1]", s);
    BOOST_TEST(toml.find("default_bind = \"tcp://ib0:%p\"\n") != std::string::npos, toml);
    BOOST_TEST(toml.find("default_connect = \"tcp://%h.job.ns.svc.cluster.local:%p\"\n") != std::string::npos);
    BOOST_TEST(toml.find("{ host=\"job-node-0-[0-1]\"},\n") != std::string::npos);
    BOOST_TEST(toml.find("queue-policy = \"easy\"\n") != std::string::npos);
    BOOST_TEST(toml.find("%s") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(entrypoint_flags_and_resources) {
    std::string cpu = flux::entrypointScript("job", 2, 4, 0);
    BOOST_TEST(cpu.find("flux R encode --hosts=${hosts} --cores=0-3 > /tmp/R\n") != std::string::npos);
    BOOST_TEST(cpu.find("mainHost=\"job-node-0-0\"\n") != std::string::npos);
    BOOST_TEST(cpu.find("    flags=\"-N 2 -n 8  \"\n") != std::string::npos);
    std::string gpu = flux::entrypointScript("job", 3, 1, 2);
    BOOST_TEST(gpu.find("--cores=0 --gpu=0-1 > /tmp/R\n") != std::string::npos);
    BOOST_TEST(gpu.find("flags=\"-N 3 -n 3 -g 2  \"\n") != std::string::npos);
    std::string init = flux::initScript("job", "ns", 3, flux::BrokerSettings{});
    BOOST_TEST(init.find("fluxroot=/opt/view\nmainHost=job-0\n") != std::string::npos);
    BOOST_TEST(init.find("hosts=\"job-node-0-[0-2]\"\n") != std::string::npos);
    // broker.toml (ending in a newline) then the heredoc's own newline before EOT.
    BOOST_TEST(init.find("queue-policy = \"fcfs\"\n\nEOT\n") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
