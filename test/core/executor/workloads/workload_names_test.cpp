#define BOOST_TEST_MODULE test_core_executor_workloads
#include <boost/test/unit_test.hpp>

#include "core/executor/completed_indexes.hpp"
#include "core/executor/workload_names.hpp"

using namespace trainer::core::executor;

BOOST_AUTO_TEST_SUITE(workload_names)

BOOST_AUTO_TEST_CASE(child_job_and_pod_names) {
    BOOST_TEST(childJobName("train", "node", 3) == "train-node-3");
    BOOST_TEST(indexedPodGenerateName("train-node-0", 2) == "train-node-0-2-");
    BOOST_TEST(indexedPodHostname("train-node-0", 2) == "train-node-0-2");
    BOOST_TEST(podGenerateName("train-node-0") == "train-node-0-");
    // A long Job name is cut so the generated name fits 63 characters, keeping "-<index>-".
    std::string longJob(70, 'a');
    auto prefix = indexedPodGenerateName(longJob, 12);
    BOOST_TEST(prefix.size() == 58u);
    BOOST_TEST(prefix.substr(prefix.size() - 4) == "-12-");
    BOOST_TEST(podGenerateName(longJob).size() == 58u);
}

BOOST_AUTO_TEST_CASE(job_key_is_sha1_of_namespaced_name) {
    // python3 -c "import hashlib;print(hashlib.sha1(b'default/train-node-0').hexdigest())"
    BOOST_TEST(jobHashKey("default", "train-node-0") == "891b1daecc5b275adfb7819ce8581da84b41cc27");
    BOOST_TEST(lowerJobSetKind() == std::string("job") + "set");
}

BOOST_AUTO_TEST_CASE(completed_indexes_format) {
    IndexSet s;
    for (int i : {4, 0, 2, 1, 6, 7}) s.add(i);
    BOOST_TEST(s.toString() == "0-2,4,6,7");
    BOOST_TEST(s.total() == 6);
    BOOST_TEST(s.has(1));
    BOOST_TEST(!s.has(3));
    s.add(5);
    BOOST_TEST(s.toString() == "0-2,4-7");
    s.add(3);
    BOOST_TEST(s.toString() == "0-7");
    auto p = IndexSet::parse("0-2,4,x,9-12", 11);
    BOOST_TEST(p.toString() == "0-2,4,9,10");
    BOOST_TEST(IndexSet::parse("", 3).total() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
