#include <boost/test/unit_test.hpp>

#include "core/plugin/edits.hpp"
#include "test_support.hpp"

using namespace trainer::core;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(edits)

const json::value* at(const json::object& info, const std::string& path) {
    std::vector<std::string> p;
    BOOST_REQUIRE(splitPointer(path, p));
    static json::value holder;
    holder = info;
    return resolve(holder, p);
}

BOOST_AUTO_TEST_CASE(pointer_escaping) {
    std::vector<std::string> p;
    BOOST_TEST(splitPointer("/scheduler/podLabels/scheduling.x-k8s.io~1pod-group", p));
    BOOST_TEST(p.back() == "scheduling.x-k8s.io/pod-group");
    BOOST_TEST(splitPointer("/a/b~0c", p));
    BOOST_TEST(p.back() == "b~c");
    BOOST_TEST(!splitPointer("a/b", p));
    BOOST_TEST(!splitPointer("/a~2", p));
    BOOST_TEST(!splitPointer("", p));
    // RFC 6901: every segment, empty ones too, and "~" only as "~0" or "~1".
    using Segments = std::vector<std::string>;
    const std::vector<std::pair<std::string, Segments>> good{
        {"/", {""}},
        {"/a/", {"a", ""}},
        {"//x", {"", "x"}},
        {"/podSets/0/containers/1/env", {"podSets", "0", "containers", "1", "env"}},
        {"/~01", {"~1"}},
        {"/x~1~0y/z", {"x/~y", "z"}},
    };
    for (auto const& [path, want] : good) {
        BOOST_TEST_CONTEXT(path) {
            BOOST_TEST(splitPointer(path, p));
            BOOST_TEST(p == want, boost::test_tools::per_element());
        }
    }
    for (std::string bad : {"/a~", "/a~/b", "/~", "/a/~x"}) BOOST_TEST(!splitPointer(bad, p), bad);
}

BOOST_AUTO_TEST_CASE(upsert_keeps_position_and_appends_new) {
    auto info = minimalInfo();
    EditLedger l;
    BOOST_TEST(l.apply(info, "p", R"({"op":"set","path":"/podSets/node/containers/node/env/NEW","value":{"name":"NEW","value":"n"}})") == "");
    BOOST_TEST(l.apply(info, "p", R"({"op":"set","path":"/podSets/node/containers/node/env/KEEP","value":{"name":"KEEP","value":"2"}})") == "");
    auto const& env = info.at("podSets").as_array()[0].at("containers").as_array()[0].at("env").as_array();
    BOOST_REQUIRE_EQUAL(env.size(), 2u);
    BOOST_TEST(env[0].at("name").as_string() == "KEEP");
    BOOST_TEST(env[0].at("value").as_string() == "2");
    BOOST_TEST(env[1].at("name").as_string() == "NEW");
}

BOOST_AUTO_TEST_CASE(ports_are_keyed_by_number_and_maps_by_member) {
    auto info = minimalInfo();
    EditLedger l;
    BOOST_TEST(l.apply(info, "p", R"({"op":"set","path":"/podSets/node/containers/node/ports/29500","value":{"containerPort":29500}})") == "");
    BOOST_TEST(l.apply(info, "p", R"({"op":"set","path":"/scheduler/podLabels/a~1b","value":"v"})") == "");
    BOOST_TEST(l.apply(info, "p", R"({"op":"set","path":"/jobSetSpec/replicatedJobs/node/template/spec/parallelism","value":4})") == "");
    BOOST_TEST(at(info, "/podSets/node/containers/node/ports/29500") != nullptr);
    BOOST_TEST(at(info, "/scheduler/podLabels/a~1b")->as_string() == "v");
    BOOST_TEST(at(info, "/jobSetSpec/replicatedJobs/node/template/spec/parallelism")->as_int64() == 4);
}

struct BadEdit {
    std::string edit;
    std::string error;
};
const std::vector<BadEdit> kBadEdits = {
    {"[1]", "emitted an edit that is not a JSON object"},
    {"{\"op\":\"set\"", "emitted an edit that is not a JSON object"},
    {R"({"op":"patch","path":"/x","value":1})", "unknown op \"patch\""},
    {R"({"op":"set","value":1})", "without \"op\" and \"path\" strings"},
    {R"({"op":"set","path":"nope","value":1})", "malformed path \"nope\""},
    {R"({"op":"set","path":"/podSets/node/count"})", "without a value"},
    {R"({"op":"set","path":"/podSets/missing/count","value":1})", "podSets has no element with name \"missing\""},
    {R"({"op":"set","path":"/podSets/node/containers/node/env/A","value":{"name":"B"}})", "whose name is not \"A\""},
    {R"({"op":"set","path":"/infoVersion","value":2})", "may not edit /infoVersion"},
    {R"({"op":"set","path":"/operator/featureGates/TrainJobStatus","value":true})",
     "may not edit /operator/featureGates/TrainJobStatus"},
    {R"({"op":"remove","path":"/operator"})", "may not edit /operator"},
    {R"({"op":"set","path":"/podSets/node/count/x","value":1})", "is not an object or list"},
};

BOOST_AUTO_TEST_CASE(bad_edits_are_errors_naming_the_plugin) {
    for (auto const& c : kBadEdits) {
        BOOST_TEST_CONTEXT(c.edit) {
            auto info = minimalInfo();
            EditLedger l;
            auto err = l.apply(info, "weird", c.edit);
            BOOST_TEST(err.find("plugin weird") != std::string::npos, err);
            BOOST_TEST(err.find(c.error) != std::string::npos, err);
        }
    }
}

// Rule 12: no last-write-wins. Same value agrees; a different value names both plugins.
BOOST_AUTO_TEST_CASE(conflicts_between_plugins) {
    auto info = minimalInfo();
    EditLedger l;
    BOOST_TEST(l.apply(info, "a", R"({"op":"set","path":"/podSets/node/count","value":3})") == "");
    BOOST_TEST(l.apply(info, "b", R"({"op":"set","path":"/podSets/node/count","value":3})") == "");
    auto err = l.apply(info, "b", R"({"op":"set","path":"/podSets/node/count","value":4})");
    BOOST_TEST(err.find("plugins a and b both write /podSets/node/count with different values") != std::string::npos, err);
    // A plugin may rewrite its own value.
    EditLedger own;
    auto info2 = minimalInfo();
    BOOST_TEST(own.apply(info2, "a", R"({"op":"set","path":"/podSets/node/count","value":3})") == "");
    BOOST_TEST(own.apply(info2, "a", R"({"op":"set","path":"/podSets/node/count","value":5})") == "");
}

BOOST_AUTO_TEST_CASE(conflicts_through_parent_and_child_paths) {
    auto info = minimalInfo();
    EditLedger l;
    BOOST_TEST(l.apply(info, "a", R"({"op":"set","path":"/podSets/node/containers/node/env/X","value":{"name":"X","value":"1"}})") == "");
    auto err = l.apply(info, "b", R"({"op":"set","path":"/podSets/node/containers/node/env/X/value","value":"2"})");
    BOOST_TEST(err.find("plugins a and b both write") != std::string::npos, err);
    auto info2 = minimalInfo();
    EditLedger l2;
    BOOST_TEST(l2.apply(info2, "a", R"({"op":"set","path":"/podSets/node/containers/node/env/X/value","value":"1"})").find("no element") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(claimed_env_and_volume_names) {
    auto info = minimalInfo();
    EditLedger l;
    l.addClaim("env:PET_NNODES", "torchlike");
    l.addClaim("volume:ssh", "mpilike");
    BOOST_TEST(l.apply(info, "torchlike", R"({"op":"set","path":"/podSets/node/containers/node/env/PET_NNODES","value":{"name":"PET_NNODES","value":"1"}})") == "");
    auto err = l.apply(info, "other", R"({"op":"set","path":"/podSets/node/containers/node/env/PET_NNODES","value":{"name":"PET_NNODES","value":"1"}})");
    BOOST_TEST(err.find("\"env:PET_NNODES\" is claimed by plugin torchlike") != std::string::npos, err);
    err = l.apply(info, "other", R"({"op":"set","path":"/podSets/node/volumes/ssh","value":{"name":"ssh"}})");
    BOOST_TEST(err.find("\"volume:ssh\" is claimed by plugin mpilike") != std::string::npos, err);
}

BOOST_AUTO_TEST_CASE(remove_and_index_paths) {
    auto info = minimalInfo();
    EditLedger l;
    BOOST_TEST(l.apply(info, "p", R"({"op":"remove","path":"/podSets/node/containers/node/env/KEEP"})") == "");
    BOOST_TEST(info.at("podSets").as_array()[0].at("containers").as_array()[0].at("env").as_array().empty());
    BOOST_TEST(l.apply(info, "p", R"({"op":"set","path":"/trainJob/spec/trainer/command","value":["tune","run"]})") == "");
    BOOST_TEST(l.apply(info, "p", R"({"op":"set","path":"/trainJob/spec/trainer/command/-","value":"--x"})") == "");
    BOOST_TEST(l.apply(info, "p", R"({"op":"set","path":"/trainJob/spec/trainer/command/0","value":"tune2"})") == "");
    auto const& cmd = info.at("trainJob").at("spec").at("trainer").at("command").as_array();
    BOOST_TEST(cmd.size() == 3u);
    BOOST_TEST(cmd[0].as_string() == "tune2");
    BOOST_TEST(cmd[2].as_string() == "--x");
    BOOST_TEST(l.apply(info, "p", R"({"op":"set","path":"/trainJob/spec/trainer/command/7","value":"x"})").find("does not exist") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
