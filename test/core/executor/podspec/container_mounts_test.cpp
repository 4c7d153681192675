#include <boost/test/unit_test.hpp>

#include "core/executor/volumes.hpp"
#include "podspec_fixture.hpp"

#include <fstream>

using namespace trainer::core;
using namespace trainer::core::executor;
using namespace podspec_test;

namespace {

struct MountFixture {
    TempDir tmp;
    ObjectSet cluster;
    PodVolumes volumes;
    MountFixture() {
        cluster.put(configMap("team", "cfg", {{"train.yaml", "lr: 0.1"}}));
        volumes = materializeVolumes(pod(R"({"containers":[{"name":"c"}],"volumes":[
            {"name":"cfg","configMap":{"name":"cfg"}},{"name":"scratch","emptyDir":{}}]})"),
                                     cluster, tmp.path);
        BOOST_REQUIRE(!volumes.problem);
    }
    fs::path volume(const std::string& name) const { return volumes.hostPaths.at(name); }
    ContainerMounts mounts(std::string_view volumeMounts, const std::vector<EnvVar>& env = {}) const {
        return containerMounts(obj(std::string(R"({"name":"c","volumeMounts":)") + std::string(volumeMounts) + "}"),
                               volumes, env);
    }
};

std::string problemOf(const ContainerMounts& m) { return m.problem ? m.problem->message : "(no problem)"; }

}  // namespace

BOOST_FIXTURE_TEST_SUITE(container_mounts, MountFixture)

BOOST_AUTO_TEST_CASE(mounts_follow_volume_mounts_in_order) {
    auto m = mounts(R"([{"name":"scratch","mountPath":"/scratch"},{"name":"cfg","mountPath":"/etc/cfg"},
        {"name":"scratch","mountPath":"/ro","readOnly":true}])");
    BOOST_TEST(!m.problem, problemOf(m));
    BOOST_REQUIRE(m.mounts.size() == 3u);
    BOOST_TEST((m.mounts[0] == Mount{volume("scratch").string(), "/scratch", false}));
    // configMap volumes are always read-only.
    BOOST_TEST((m.mounts[1] == Mount{volume("cfg").string(), "/etc/cfg", true}));
    BOOST_TEST((m.mounts[2] == Mount{volume("scratch").string(), "/ro", true}));
    BOOST_TEST(fs::path(m.mounts[0].source).is_absolute());
    BOOST_TEST(mounts("[]").mounts.empty());
    BOOST_TEST(!containerMounts(obj(R"({"name":"c"})"), volumes).problem);
}

BOOST_AUTO_TEST_CASE(sub_paths_select_a_file_or_directory_inside_the_volume) {
    auto m = mounts(R"J([{"name":"cfg","mountPath":"/etc/train.yaml","subPath":"train.yaml"},
        {"name":"scratch","mountPath":"/out","subPath":"runs/0"},
        {"name":"scratch","mountPath":"/rank","subPathExpr":"ranks/$(RANK)"}])J",
                    {{"RANK", "3"}});
    BOOST_TEST(!m.problem, problemOf(m));
    BOOST_REQUIRE(m.mounts.size() == 3u);
    // The configMap key resolves through its symlinks to the file in the current data directory.
    fs::path file = m.mounts[0].source;
    BOOST_TEST(fs::is_regular_file(fs::symlink_status(file)));
    BOOST_TEST(file.parent_path().parent_path() == fs::canonical(volume("cfg")));
    BOOST_TEST(m.mounts[0].readOnly);
    BOOST_TEST(m.mounts[1].source == fs::canonical(volume("scratch") / "runs" / "0").string());
    BOOST_TEST(fs::is_directory(m.mounts[1].source));
    BOOST_TEST(m.mounts[2].source == fs::canonical(volume("scratch") / "ranks" / "3").string());
}

BOOST_AUTO_TEST_CASE(bad_mounts_are_config_errors) {
    fs::create_directory_symlink("/", volume("scratch") / "escape");
    const std::pair<std::string, std::string> cases[] = {
        {R"([{"name":"data","mountPath":"/data"}])", "cannot find volume \"data\" to mount into container \"c\""},
        {R"([{"name":"scratch","mountPath":"data"}])",
         "container \"c\".volumeMounts[0].mountPath: Invalid value: \"data\": must be an absolute path"},
        {R"([{"name":"scratch"}])", "container \"c\".volumeMounts[0].mountPath: Required value"},
        {R"([{"name":"scratch","mountPath":"/a","subPath":"/etc"}])", "error SubPath `/etc` must not be an absolute path"},
        {R"([{"name":"scratch","mountPath":"/a","subPath":"a/../../b"}])",
         "unable to provision SubPath `a/../../b`: must not contain '..'"},
        {R"([{"name":"scratch","mountPath":"/a","subPath":"escape"}])",
         "failed to prepare subPath for volumeMount \"scratch\" of container \"c\""},
        {R"J([{"name":"scratch","mountPath":"/a","subPathExpr":"$(POD)/$(EMPTY)/$(RANK)"}])J", "missing value for EMPTY, POD"},
        {R"([{"name":"scratch","mountPath":"/a","readOnly":"yes"}])",
         "container \"c\".volumeMounts[0].readOnly: Invalid value: \"yes\": must be a boolean"},
        {R"([{"name":"scratch","mountPath":"/a"},7])", "container \"c\".volumeMounts[1]: Invalid value: 7: must be an object"},
        {R"({"name":"scratch"})", "container \"c\".volumeMounts: Invalid value: {\"name\":\"scratch\"}: must be an array"},
    };
    for (auto const& [volumeMounts, want] : cases) {
        auto m = mounts(volumeMounts, {{"RANK", "0"}, {"EMPTY", ""}});
        BOOST_REQUIRE(m.problem);
        BOOST_TEST(m.problem->reason == "CreateContainerConfigError");
        BOOST_TEST(m.problem->message == want);
    }
    auto named = containerMounts(obj(R"({"name":"c","volumeMounts":[{"name":"x"}]})"), volumes, {}, "spec.containers[2]");
    BOOST_TEST(problemOf(named) == "spec.containers[2].volumeMounts[0].mountPath: Required value");
}

BOOST_AUTO_TEST_SUITE_END()
