// The informers' cache and change feed: newer-wins upserts, relists that delete what vanished,
// a bounded feed whose compaction makes a behind reader relist; objects shared, not copied.
#include <boost/test/unit_test.hpp>

#include "core/kube/informer.hpp"
#include "core/kube/remote_store.hpp"

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

// share() hands out the object the cache holds (the same one each time, no copy); a newer
// version replaces it for later readers while an earlier reader keeps what it was given; an
// erased or unknown key is null. RemoteStore::share answers an informed kind from it, and an
// object the cache does not hold as NotFound (the cache is the informed kinds' truth; no request
// is made, so the client here points at no server).
BOOST_AUTO_TEST_CASE(objects_are_shared_not_copied) {
    InformerCache cache;
    const ObjectKey a{"v1", "ConfigMap", "default", "a"};
    BOOST_TEST(!cache.share(a));
    cache.upsert(configMap("a", "1", "one"));
    auto first = cache.share(a);
    BOOST_TEST_REQUIRE(first);
    BOOST_TEST(first->found());
    BOOST_TEST(first->object.at("data").at("k") == "one");
    BOOST_TEST(cache.share(a) == first);  // the same object: nothing copied
    cache.upsert(configMap("a", "2", "two"));
    auto second = cache.share(a);
    BOOST_TEST_REQUIRE(second);
    BOOST_TEST(second->object.at("data").at("k") == "two");
    BOOST_TEST(first->object.at("data").at("k") == "one");  // the earlier holder's is unchanged
    BOOST_TEST(cache.get(a)->at("data").at("k") == "two");

    RestConfig nowhere;
    nowhere.server = "https://127.0.0.1:1";
    Client client(nowhere);
    RemoteStore store(client, cache, {kConfigMaps});
    BOOST_TEST(store.share(a) == second);
    auto missing = store.share(ObjectKey{"v1", "ConfigMap", "default", "b"});
    BOOST_TEST(missing->notFound());
    cache.erase(a, configMap("a", "3"));
    BOOST_TEST(!cache.share(a));
    BOOST_TEST(store.share(a)->notFound());
    BOOST_TEST(second->object.at("data").at("k") == "two");
}

BOOST_AUTO_TEST_CASE(collection_paths) {
    BOOST_TEST(kConfigMaps.collectionPath("team") == "/api/v1/namespaces/team/configmaps");
    BOOST_TEST(kConfigMaps.collectionPath("") == "/api/v1/configmaps");
    WatchedResource ctr{"trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime", "clustertrainingruntimes", false, ""};
    BOOST_TEST(ctr.collectionPath("team") == "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes");
}

BOOST_AUTO_TEST_SUITE_END()
