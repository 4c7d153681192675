#define BOOST_TEST_MODULE sdk_plugin_helpers_test
#include <boost/test/unit_test.hpp>

#include <trainer/plugin.hpp>
#include <trainer/testing.hpp>

using namespace trainer::sdk;

namespace {
// An Info with a trainer PodSet "node" (count 5) and the given spec.trainer (null: none).
json::object infoWith(json::value trainer, bool trainerPodSet = true) {
    auto o = json::parse(R"({"infoVersion":1,
      "trainJob":{"metadata":{"name":"j","namespace":"ns"},"spec":{}},
      "podSets":[{"name":"init","ancestor":"dataset-initializer","count":1},
                 {"name":"node","ancestor":"trainer","count":5}]})")
                 .as_object();
    if (!trainerPodSet) o["podSets"].as_array().pop_back();
    if (!trainer.is_null()) o["trainJob"].as_object()["spec"].as_object()["trainer"] = std::move(trainer);
    return o;
}
}  // namespace

BOOST_AUTO_TEST_CASE(completion_index_env) {
    auto e = completionIndexEnv("RANK");
    BOOST_TEST(json::serialize(e) ==
               R"({"name":"RANK","valueFrom":{"fieldRef":{"fieldPath":"metadata.annotations['batch.kubernetes.io/job-completion-index']"}}})");
}

BOOST_AUTO_TEST_CASE(trainer_num_nodes) {
    struct Case {
        const char* name;
        json::value trainer;
        bool podSet;
        std::optional<int64_t> count;  // nullopt: no trainer PodSet
        bool edit;
    };
    const Case cases[] = {
        {"numNodes set", json::object{{"numNodes", 3}}, true, 3, true},
        {"numNodes 0 propagates", json::object{{"numNodes", 0}}, true, 0, true},
        {"trainer without numNodes", json::object{}, true, 5, false},
        {"no trainer", nullptr, true, 5, false},
        {"no trainer PodSet", json::object{{"numNodes", 3}}, false, std::nullopt, false},
    };
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.name) {
            testing::Host host;
            auto ctx = host.context();
            Edits edits(ctx);
            auto r = applyTrainerNumNodes(Info(infoWith(c.trainer, c.podSet)), edits);
            BOOST_TEST(r.has_value() == c.count.has_value());
            if (r && c.count) {
                BOOST_TEST(r->name == "node");
                BOOST_TEST(r->count == *c.count);
                BOOST_TEST(r->podSet != nullptr);
            }
            BOOST_REQUIRE_EQUAL(host.emitted.size(), c.edit ? 1u : 0u);
            if (c.edit) {
                BOOST_TEST(host.emitted[0].at("path").as_string() == "/podSets/node/count");
                BOOST_TEST(host.emitted[0].at("value").as_int64() == *c.count);
            }
        }
    }
}
