// The pod network's kernel requests (core/executor/rtnetlink.hpp, named_netns.hpp) checked by
// iproute2's `ip`, the tool whose namespaces and links they must be indistinguishable from. Every
// link is made inside namespaces these tests create and remove, never in the host's. Needs root.
#define BOOST_TEST_MODULE core_executor_network
#include <boost/test/unit_test.hpp>

#include "core/executor/command_runner.hpp"
#include "core/executor/named_netns.hpp"

#include <boost/json.hpp>

#include <unistd.h>

#include <filesystem>

using namespace trainer::core::executor;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

// `ip -j <args>` as JSON; fails the test when ip does.
json::array ipJson(const std::vector<std::string>& args) {
    std::vector<std::string> argv{"ip", "-j"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = runCommand(argv);
    BOOST_REQUIRE_MESSAGE(r.ok(), "ip " + args.front() + ": " + r.output);
    auto v = json::parse(r.output.empty() ? "[]" : r.output);
    BOOST_REQUIRE(v.is_array());
    return v.get_array();
}

bool listed(const std::string& name) {
    for (auto const& ns : ipJson({"netns", "list"}))
        if (ns.as_object().at("name") == json::value(name)) return true;
    return false;
}

bool hasFlag(const json::object& link, const char* flag) {
    for (auto const& f : link.at("flags").as_array())
        if (f == json::value(flag)) return true;
    return false;
}

// Two namespaces removed at the end whatever happens: `a` plays the host's side, `b` a pod's.
struct TwoNamespaces {
    std::string a = "trn-nltest-" + std::to_string(::getpid()) + "-a";
    std::string b = "trn-nltest-" + std::to_string(::getpid()) + "-b";
    std::optional<NamedNetns> nsA, nsB;
    TwoNamespaces() {
        BOOST_REQUIRE_MESSAGE(::geteuid() == 0, "the network tests need root (namespaces, links): run them as root");
        std::string error;
        nsA = addNamedNetns(a, error);
        BOOST_REQUIRE_MESSAGE(nsA, "add " + a + ": " + error);
        nsB = addNamedNetns(b, error);
        BOOST_REQUIRE_MESSAGE(nsB, "add " + b + ": " + error);
    }
    ~TwoNamespaces() {
        for (auto* ns : {&nsA, &nsB})
            if (*ns && (*ns)->fd >= 0) ::close((*ns)->fd);
        deleteNamedNetns(a);
        deleteNamedNetns(b);
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(network, TwoNamespaces)

BOOST_AUTO_TEST_CASE(named_namespaces_are_ip_netns_namespaces) {
    BOOST_TEST(listed(a));
    BOOST_TEST(listed(b));
    BOOST_TEST(nsA->path == std::string(kNetnsDir) + "/" + a);
    // Each is its own namespace: only lo, down, as a new one has.
    auto links = ipJson({"-n", a, "link", "show"});
    BOOST_REQUIRE_EQUAL(links.size(), 1u);
    BOOST_TEST(links[0].as_object().at("ifname") == "lo");
    BOOST_TEST(deleteNamedNetns(a).empty());
    BOOST_TEST(!listed(a));
    BOOST_TEST(!fs::exists(nsA->path));
    BOOST_TEST(deleteNamedNetns(a).empty(), "removing one already gone is not an error");
    std::string error;
    BOOST_TEST(!addNamedNetns(b, error), "a name in use is refused");
    BOOST_TEST(error.find("File exists") != std::string::npos, error);
    BOOST_TEST(listed(b), "and the namespace in use is left alone");
    BOOST_TEST(!addNamedNetns("../x", error));
    BOOST_TEST(error.find("not a namespace name") != std::string::npos, error);
}

BOOST_AUTO_TEST_CASE(a_bridge_a_veth_pair_an_address_and_a_route_as_ip_shows_them) {
    auto& host = *nsA->inside;
    auto& pod = *nsB->inside;
    BOOST_REQUIRE_EQUAL(host.addBridge("br0"), "");
    BOOST_REQUIRE_EQUAL(host.addAddress("br0", "10.77.0.1", 16), "");
    BOOST_REQUIRE_EQUAL(host.setUp("br0"), "");
    std::string error;
    const int bridge = host.linkIndex("br0", error);
    BOOST_REQUIRE_MESSAGE(bridge > 0, error);
    BOOST_REQUIRE_EQUAL(host.addVeth("v0", "eth0", nsB->fd), "");
    BOOST_REQUIRE_EQUAL(host.setUp("v0", bridge), "");
    BOOST_REQUIRE_EQUAL(pod.addAddress("eth0", "10.77.0.5", 16), "");
    BOOST_REQUIRE_EQUAL(pod.setUp("eth0"), "");
    BOOST_REQUIRE_EQUAL(pod.setUp("lo"), "");
    BOOST_REQUIRE_EQUAL(pod.addDefaultRoute("10.77.0.1"), "");

    auto br = ipJson({"-n", a, "addr", "show", "br0"});
    BOOST_REQUIRE_EQUAL(br.size(), 1u);
    BOOST_TEST(br[0].as_object().at("ifindex").as_int64() == bridge);
    auto v0 = ipJson({"-n", a, "link", "show", "v0"});
    BOOST_REQUIRE_EQUAL(v0.size(), 1u);
    BOOST_TEST(v0[0].as_object().at("master") == "br0");
    BOOST_TEST(hasFlag(v0[0].as_object(), "UP"));
    BOOST_TEST(!runCommand({"ip", "-n", b, "link", "show", "v0"}).ok(), "v0 is the host's side only");

    auto eth0 = ipJson({"-4", "-n", b, "addr", "show", "eth0"});
    BOOST_REQUIRE_EQUAL(eth0.size(), 1u);
    BOOST_TEST(hasFlag(eth0[0].as_object(), "UP"));
    auto const& info = eth0[0].as_object().at("addr_info").as_array();
    BOOST_REQUIRE_EQUAL(info.size(), 1u);
    BOOST_TEST(info[0].as_object().at("local") == "10.77.0.5");
    BOOST_TEST(info[0].as_object().at("prefixlen").as_int64() == 16);
    auto lo = ipJson({"-n", b, "link", "show", "lo"});
    BOOST_TEST(hasFlag(lo[0].as_object(), "UP"));
    auto routes = ipJson({"-n", b, "route", "show", "default"});
    BOOST_REQUIRE_EQUAL(routes.size(), 1u);
    BOOST_TEST(routes[0].as_object().at("gateway") == "10.77.0.1");
    BOOST_TEST(routes[0].as_object().at("dev") == "eth0");

    // The pod's side reaches the bridge's address through the pair: a TCP connect to a closed port
    // is refused by the other side (unreachable, it would say "No route to host").
    auto reach = runCommand({"ip", "netns", "exec", b, "bash", "-c", "exec 3<>/dev/tcp/10.77.0.1/9"});
    BOOST_TEST(reach.output.find("Connection refused") != std::string::npos, reach.output);

    // Removing the pod's namespace removes the pair with it.
    nsB->inside.reset();
    ::close(nsB->fd);
    nsB->fd = -1;
    BOOST_REQUIRE_EQUAL(deleteNamedNetns(b), "");
    bool gone = false;
    for (int i = 0; i < 500 && !gone; ++i) {  // the namespace is torn down asynchronously
        gone = !host.linkIndex("v0", error);
        if (!gone) ::usleep(10000);
    }
    BOOST_TEST(gone, "v0 outlived its peer's namespace");
    BOOST_TEST(error.find("No such device") != std::string::npos, error);
}

BOOST_AUTO_TEST_CASE(refusals_name_the_request_and_the_kernels_reason) {
    auto& host = *nsA->inside;
    BOOST_REQUIRE_EQUAL(host.addBridge("br0"), "");
    auto twice = host.addBridge("br0");
    BOOST_TEST(twice.find("add bridge br0: File exists") == 0, twice);
    std::string error;
    BOOST_TEST(host.linkIndex("nope0", error) == 0);
    BOOST_TEST(error.find("find link nope0: No such device") == 0, error);
    auto up = host.setUp("nope0");
    BOOST_TEST(up.find("set link nope0 up: No such device") == 0, up);
    auto bad = host.addAddress("br0", "10.77.0.300", 16);
    BOOST_TEST(bad == "add address 10.77.0.300: not an IPv4 address");
    auto noGateway = host.addDefaultRoute("10.99.0.1");  // no link reaches it
    BOOST_TEST(noGateway.find("add default route via 10.99.0.1: ") == 0, noGateway);
    BOOST_TEST(host.deleteLink("br0").empty());
    auto again = host.deleteLink("br0");
    BOOST_TEST(again.find("delete link br0: No such device") == 0, again);
}

BOOST_AUTO_TEST_SUITE_END()
