// The node's extra names (the operator's services) in every pod's hosts file.
#include "core/controller/clock.hpp"
#include "core/executor/cluster_dns.hpp"
#include "core/executor/kubelet.hpp"
#include "core/store/memory_store.hpp"

#include <boost/test/unit_test.hpp>

using trainer::core::executor::ClusterDns;

BOOST_AUTO_TEST_SUITE(node_names)

BOOST_AUTO_TEST_CASE(every_pod_maps_the_node_names_to_the_bridge_address) {
    ClusterDns dns;
    dns.add("before", {"team", "a", "", "10.200.0.2", ""});
    BOOST_TEST(dns.hostsFor("before").find("10.200.0.1") == std::string::npos);
    dns.setNodeNames("10.200.0.1", {"svc.kubeflow-system.svc", "svc.kubeflow-system.svc.cluster.local"});
    dns.add("u1", {"team", "w-0", "grp", "10.200.0.3", ""});
    dns.add("u2", {"other", "x", "", "10.200.0.4", ""});
    for (auto uid : {"before", "u1", "u2"}) {
        const std::string hosts = dns.hostsFor(uid);
        BOOST_TEST(hosts.find("# services of the operator on this node\n"
                              "10.200.0.1\tsvc.kubeflow-system.svc\tsvc.kubeflow-system.svc.cluster.local\n") !=
                       std::string::npos,
                   hosts);
    }
    ClusterDns none;
    none.add("u", {"team", "a", "", "10.200.0.2", ""});
    BOOST_TEST(none.hostsFor("u").find("services of the operator") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_name_that_is_not_a_dns_subdomain_stops_the_kubelet_from_starting) {
    using namespace trainer::core;
    for (std::string bad : {"", "Upper.svc", "a..b", "-a.svc", "a.svc.", "a b", "a\nb"}) {
        MemoryStore store;
        controller::FakeClock clock;
        executor::KubeletOptions o;
        o.stateDir = "/nonexistent/identity-test";
        o.executable = "/bin/true";
        o.nodeHostNames = {"fine.kubeflow-system.svc", bad};
        executor::Kubelet kubelet(store, clock, log::Logger("identity-test"), o);
        BOOST_TEST(kubelet.start() ==
                       "the local executor's node host name \"" + bad + "\" is not a DNS subdomain (RFC 1123)",
                   bad);
    }
}

BOOST_AUTO_TEST_SUITE_END()
