// The informers' cache and change feed: newer-wins upserts, relists that delete what vanished,
// a bounded feed whose compaction makes a behind reader relist.
#include <boost/test/unit_test.hpp>

#include "core/kube/informer.hpp"

using namespace trainer::core;
using namespace trainer::core::kube;

namespace {

json::object configMap(const std::string& name, const std::string& rv, const std::string& value = "v") {
    return json::object{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", json::object{{"name", name}, {"namespace", "default"}, {"resourceVersion", rv}}},
                        {"data", json::object{{"k", value}}}};
}

const WatchedResource kConfigMaps{"v1", "ConfigMap", "configmaps", true, ""};

}  // namespace

BOOST_AUTO_TEST_SUITE(informer_cache)

BOOST_AUTO_TEST_CASE(newer_resource_versions_win) {
    InformerCache cache;
    cache.upsert(configMap("a", "5", "five"));
    cache.upsert(configMap("a", "4", "four"));  // an older event arriving late changes nothing
    cache.upsert(configMap("a", "5", "again"));
    BOOST_TEST(cache.get(ObjectKey{"v1", "ConfigMap", "default", "a"})->at("data").at("k") == "five");
    cache.upsert(configMap("a", "12", "twelve"));  // numerically newer, lexically smaller
    BOOST_TEST(cache.get(ObjectKey{"v1", "ConfigMap", "default", "a"})->at("data").at("k") == "twelve");
    auto changes = cache.changesSince(0, 10);
    BOOST_TEST_REQUIRE(changes.size() == 2u);
    BOOST_TEST((changes[0].type == ChangeType::Added));
    BOOST_TEST((changes[1].type == ChangeType::Modified));
    BOOST_TEST(cache.revision() == 2);
}

BOOST_AUTO_TEST_CASE(relist_deletes_what_vanished) {
    InformerCache cache;
    cache.upsert(configMap("a", "1"));
    cache.upsert(configMap("b", "2"));
    auto rev = cache.revision();
    cache.replace(kConfigMaps, {configMap("b", "3", "changed"), configMap("c", "4")});
    BOOST_TEST(!cache.get(ObjectKey{"v1", "ConfigMap", "default", "a"}));
    BOOST_TEST(cache.list("v1", "ConfigMap", std::string("default")).size() == 2u);
    std::vector<std::string> seen;
    for (auto const& c : cache.changesSince(rev, 10)) seen.push_back(std::string(toString(c.type)) + " " + c.key.name);
    const std::vector<std::string> expected{"DELETED a", "MODIFIED b", "ADDED c"};
    BOOST_TEST(seen == expected, boost::test_tools::per_element());
    BOOST_TEST(cache.bytesByKind().at("ConfigMap") > 0u);
}

BOOST_AUTO_TEST_CASE(the_feed_is_bounded) {
    InformerCache cache(3);
    for (int i = 0; i < 5; ++i) cache.upsert(configMap("cm" + std::to_string(i), std::to_string(i + 1)));
    BOOST_TEST(cache.revision() == 5);
    BOOST_TEST(cache.compactedRevision() == 2);  // a reader at revision 1 must relist
    BOOST_TEST(cache.changesSince(2, 10).size() == 3u);
    cache.erase(ObjectKey{"v1", "ConfigMap", "default", "cm0"}, configMap("cm0", "9"));
    BOOST_TEST((cache.changesSince(5, 10).at(0).type == ChangeType::Deleted));
    cache.erase(ObjectKey{"v1", "ConfigMap", "default", "cm0"}, configMap("cm0", "9"));  // gone already
    BOOST_TEST(cache.revision() == 6);
}

BOOST_AUTO_TEST_CASE(collection_paths) {
    BOOST_TEST(kConfigMaps.collectionPath("team") == "/api/v1/namespaces/team/configmaps");
    BOOST_TEST(kConfigMaps.collectionPath("") == "/api/v1/configmaps");
    WatchedResource ctr{"trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime", "clustertrainingruntimes", false, ""};
    BOOST_TEST(ctr.collectionPath("team") == "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes");
}

BOOST_AUTO_TEST_SUITE_END()
