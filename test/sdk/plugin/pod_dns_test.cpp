// <trainer/pod_dns.hpp>: the DNS names JobSet gives a TrainJob's pods, and the trainer's
// rank-0 pod, honouring network.subdomain and the trainer replicated job's name.
#include <boost/test/unit_test.hpp>

#include <trainer/pod_dns.hpp>

using namespace trainer::sdk;

namespace {
// An Info of TrainJob `job` with `jobSetSpec` and one PodSet per (name, ancestor).
Info infoOf(json::object jobSetSpec, std::vector<std::pair<const char*, const char*>> podSets) {
    json::array ps;
    for (auto const& [name, ancestor] : podSets)
        ps.push_back(json::object{{"name", name}, {"ancestor", ancestor ? json::value(ancestor) : json::value(nullptr)}});
    return Info(json::object{{"infoVersion", 1},
                             {"trainJob", json::object{{"metadata", json::object{{"name", "job"}, {"namespace", "ns"}}}}},
                             {"jobSetSpec", std::move(jobSetSpec)},
                             {"podSets", std::move(ps)}});
}
}  // namespace

BOOST_AUTO_TEST_SUITE(pod_dns)

BOOST_AUTO_TEST_CASE(trainer_pod_dns_name) {
    struct Row {
        const char* name;
        json::object jobSetSpec;
        std::vector<std::pair<const char*, const char*>> podSets;
        const char* want;
    };
    const std::vector<Row> rows{
        {"upstream runtime", {}, {{"dataset-initializer", "dataset-initializer"}, {"node", "trainer"}}, "job-node-0-0.job"},
        {"custom subdomain", {{"network", json::object{{"subdomain", "train-net"}}}}, {{"node", "trainer"}},
         "job-node-0-0.train-net"},
        {"empty subdomain is unset", {{"network", json::object{{"subdomain", ""}}}}, {{"node", "trainer"}}, "job-node-0-0.job"},
        {"network without subdomain", {{"network", json::object{{"enableDNSHostnames", true}}}}, {{"node", "trainer"}},
         "job-node-0-0.job"},
        {"trainer job named otherwise", {}, {{"launcher", nullptr}, {"workers", "trainer"}}, "job-workers-0-0.job"},
        {"no trainer PodSet: upstream's node", {}, {{"launcher", nullptr}}, "job-node-0-0.job"},
    };
    for (auto const& r : rows) {
        BOOST_TEST_CONTEXT(r.name) {
            BOOST_TEST(trainerPodDnsName(infoOf(r.jobSetSpec, r.podSets)) == r.want);
        }
    }
}

BOOST_AUTO_TEST_CASE(any_pod) {
    Info info = infoOf({{"network", json::object{{"subdomain", "sd"}}}}, {{"node", "trainer"}});
    BOOST_TEST(podSubdomain(info) == "sd");
    BOOST_TEST(podDnsName(info, "launcher") == "job-launcher-0-0.sd");
    BOOST_TEST(podDnsName(info, "node", 1, 7) == "job-node-1-7.sd");
    BOOST_TEST(podDnsName("j", "r", 2, 3, "s") == "j-r-2-3.s");
    // Nothing to read: the names are still well-formed from what there is.
    BOOST_TEST(trainerPodDnsName(Info(json::object{})) == "-node-0-0.");
}

BOOST_AUTO_TEST_SUITE_END()
