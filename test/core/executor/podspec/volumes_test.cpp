#include <boost/test/unit_test.hpp>

#include "core/executor/atomic_writer.hpp"
#include "core/executor/volumes.hpp"
#include "podspec_fixture.hpp"

#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

using namespace trainer::core;
using namespace trainer::core::executor;
using namespace podspec_test;

namespace {

std::string readText(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

unsigned modeOf(const fs::path& p) {
    struct stat st {};
    BOOST_REQUIRE(::stat(p.c_str(), &st) == 0);
    return st.st_mode & 07777;
}

std::string problemOf(const PodVolumes& v) { return v.problem ? v.problem->message : "(no problem)"; }

PodVolumes materialize(const ClusterReader& cluster, std::string_view volumes, const fs::path& dir) {
    return materializeVolumes(pod(std::string(R"({"containers":[{"name":"c"}],"volumes":)") + std::string(volumes) + "}"),
                              cluster, dir);
}

// The hidden timestamped directories of a volume (the atomic writer keeps exactly one).
int dataDirs(const fs::path& volume) {
    int n = 0;
    for (auto const& e : fs::directory_iterator(volume)) {
        std::string name = e.path().filename().string();
        n += name.starts_with("..") && name != "..data" && !e.is_symlink();
    }
    return n;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(volumes)

BOOST_AUTO_TEST_CASE(config_map_items_get_their_paths_and_modes) {
    TempDir tmp;
    ObjectSet cluster;
    cluster.put(configMap("team", "cfg", {{"a.conf", "alpha"}, {"b.conf", "beta"}, {"unused", "x"}}));
    auto v = materialize(cluster, R"([{"name":"cfg","configMap":{"name":"cfg","defaultMode":256,
        "items":[{"key":"a.conf","path":"conf/a.conf"},{"key":"b.conf","path":"b","mode":511}]}}])",
                         tmp.path);
    BOOST_TEST(!v.problem, problemOf(v));
    fs::path dir = tmp.path / "volumes" / "cfg";
    BOOST_TEST(v.hostPaths.at("cfg") == dir.string());
    BOOST_TEST(v.readOnly.count("cfg") == 1u);
    BOOST_TEST(readText(dir / "conf" / "a.conf") == "alpha");
    BOOST_TEST(readText(dir / "b") == "beta");
    BOOST_TEST(modeOf(dir / "conf" / "a.conf") == 0400u);
    BOOST_TEST(modeOf(dir / "b") == 0777u);
    BOOST_TEST(!fs::exists(dir / "unused"));
    BOOST_TEST(fs::is_symlink(dir / "conf"));
    BOOST_TEST(fs::read_symlink(dir / "conf").string() == "..data/conf");
    BOOST_TEST(fs::is_symlink(dir / "..data"));
}

BOOST_AUTO_TEST_CASE(whole_objects_use_default_mode_0644_and_secrets_are_decoded) {
    TempDir tmp;
    ObjectSet cluster;
    cluster.put(configMap("team", "cfg", {{"text", "plain"}}, {{"blob", "AAEC"}}));  // bytes 0 1 2
    cluster.put(secret("team", "creds", {{"password", "czNjcjN0"}}));
    auto v = materialize(cluster, R"([{"name":"cfg","configMap":{"name":"cfg"}},
        {"name":"creds","secret":{"secretName":"creds"}},{"name":"creds-420","secret":{"secretName":"creds","defaultMode":420}}])",
                         tmp.path);
    BOOST_TEST(!v.problem, problemOf(v));
    fs::path vols = tmp.path / "volumes";
    BOOST_TEST(readText(vols / "cfg" / "text") == "plain");
    BOOST_TEST(readText(vols / "cfg" / "blob") == std::string("\0\1\2", 3));
    BOOST_TEST(readText(vols / "creds" / "password") == "s3cr3t");
    BOOST_TEST(modeOf(vols / "cfg" / "text") == 0644u);
    BOOST_TEST(modeOf(vols / "creds" / "password") == 0644u);
    BOOST_TEST(modeOf(vols / "creds-420" / "password") == 0644u);
}

BOOST_AUTO_TEST_CASE(missing_objects_and_keys) {
    TempDir tmp;
    ObjectSet cluster;
    cluster.put(configMap("team", "cfg", {{"a", "1"}}));
    auto optional = materialize(cluster, R"([{"name":"opt","configMap":{"name":"absent","optional":true}},
        {"name":"optkey","configMap":{"name":"cfg","optional":true,"items":[{"key":"nope","path":"n"},{"key":"a","path":"a"}]}}])",
                                tmp.path);
    BOOST_TEST(!optional.problem, problemOf(optional));
    BOOST_TEST(fs::is_directory(tmp.path / "volumes" / "opt"));
    BOOST_TEST(!fs::exists(tmp.path / "volumes" / "optkey" / "n"));
    BOOST_TEST(readText(tmp.path / "volumes" / "optkey" / "a") == "1");
    const std::pair<std::string, std::string> cases[] = {
        {R"([{"name":"cfg","configMap":{"name":"absent"}}])",
         "MountVolume.SetUp failed for volume \"cfg\" : configmap \"absent\" not found"},
        {R"([{"name":"s","secret":{"secretName":"absent"}}])",
         "MountVolume.SetUp failed for volume \"s\" : secret \"absent\" not found"},
        {R"([{"name":"cfg","configMap":{"name":"cfg","items":[{"key":"nope","path":"n"}]}}])",
         "MountVolume.SetUp failed for volume \"cfg\" : configmap references non-existent config key: nope"},
    };
    for (auto const& [volumes, want] : cases) {
        auto v = materialize(cluster, volumes, tmp.path);
        BOOST_REQUIRE(v.problem);
        BOOST_TEST(v.problem->reason == "FailedMount");
        BOOST_TEST(v.problem->message == want);
        BOOST_TEST(v.hostPaths.empty());
    }
}

BOOST_AUTO_TEST_CASE(updates_replace_the_files_atomically) {
    TempDir tmp;
    ObjectSet cluster;
    cluster.put(configMap("team", "cfg", {{"a", "1"}, {"b", "2"}}));
    std::string spec = R"([{"name":"cfg","configMap":{"name":"cfg"}}])";
    fs::path dir = tmp.path / "volumes" / "cfg";
    BOOST_TEST(!materialize(cluster, spec, tmp.path).problem);
    fs::path first = fs::read_symlink(dir / "..data");
    BOOST_TEST(!materialize(cluster, spec, tmp.path).problem);
    BOOST_TEST(fs::read_symlink(dir / "..data") == first);  // unchanged content: nothing rewritten

    cluster.put(configMap("team", "cfg", {{"a", "one"}, {"c", "3"}}));
    BOOST_TEST(!materialize(cluster, spec, tmp.path).problem);
    BOOST_TEST(fs::read_symlink(dir / "..data") != first);
    BOOST_TEST(readText(dir / "a") == "one");
    BOOST_TEST(readText(dir / "c") == "3");
    BOOST_TEST(!fs::exists(fs::symlink_status(dir / "b")));
    BOOST_TEST(dataDirs(dir) == 1);
}

BOOST_AUTO_TEST_CASE(empty_dirs_keep_their_content) {
    TempDir tmp;
    std::string spec = R"([{"name":"scratch","emptyDir":{}},{"name":"shm","emptyDir":{"medium":"Memory","sizeLimit":"1Gi"}}])";
    auto v = materialize(ObjectSet(), spec, tmp.path);
    BOOST_TEST(!v.problem, problemOf(v));
    fs::path scratch = tmp.path / "volumes" / "scratch";
    BOOST_TEST(fs::is_directory(scratch));
    BOOST_TEST(modeOf(scratch) == 0777u);
    BOOST_TEST(v.readOnly.empty());
    std::ofstream(scratch / "checkpoint") << "epoch 3";
    BOOST_TEST(!materialize(ObjectSet(), spec, tmp.path).problem);
    BOOST_TEST(readText(scratch / "checkpoint") == "epoch 3");
    auto bad = materialize(ObjectSet(), R"([{"name":"h","emptyDir":{"medium":"HugePages"}}])", tmp.path);
    BOOST_TEST(problemOf(bad).find("spec.volumes[0].emptyDir.medium: Invalid value: \"HugePages\"") != std::string::npos,
               problemOf(bad));
}

BOOST_AUTO_TEST_CASE(host_paths_are_type_checked) {
    TempDir tmp;
    fs::path made = tmp.path / "data" / "made";
    fs::path file = tmp.path / "data" / "file";
    auto v = materialize(ObjectSet(),
                         R"([{"name":"d","hostPath":{"path":")" + made.string() + R"(","type":"DirectoryOrCreate"}},
                             {"name":"f","hostPath":{"path":")" + file.string() + R"(","type":"FileOrCreate"}},
                             {"name":"any","hostPath":{"path":")" + tmp.path.string() + R"(/"}}])",
                         tmp.path);
    BOOST_TEST(!v.problem, problemOf(v));
    BOOST_TEST(fs::is_directory(made));
    BOOST_TEST(fs::is_regular_file(file));
    BOOST_TEST(v.hostPaths.at("d") == made.string());
    BOOST_TEST(v.hostPaths.at("any") == tmp.path.string());
    const std::pair<std::string, std::string> cases[] = {
        {R"({"path":")" + made.string() + R"(","type":"File"})",
         "hostPath type check failed: " + made.string() + " is not a file, it's a Directory"},
        {R"({"path":")" + file.string() + R"(","type":"DirectoryOrCreate"})",
         "hostPath type check failed: " + file.string() + " is not a directory, it's a File"},
        {R"({"path":")" + file.string() + R"(","type":"Socket"})",
         "hostPath type check failed: " + file.string() + " is not a socket file, it's a File"},
        {R"({"path":")" + (tmp.path / "none").string() + R"(","type":"Directory"})",
         "hostPath " + (tmp.path / "none").string() + " doesn't exist"},
        {R"({"path":")" + file.string() + R"(","type":"Fancy"})", "Fancy is an invalid volume type"},
        {R"({"path":"relative/dir"})",
         "spec.volumes[0].hostPath.path: Invalid value: \"relative/dir\": must be an absolute path"},
    };
    for (auto const& [source, want] : cases) {
        auto bad = materialize(ObjectSet(), R"([{"name":"h","hostPath":)" + source + "}]", tmp.path);
        BOOST_TEST(problemOf(bad) == "MountVolume.SetUp failed for volume \"h\" : " + want);
    }
}

BOOST_AUTO_TEST_CASE(host_path_sockets_pass_the_socket_check) {
    TempDir tmp;
    std::string path = (tmp.path / "s.sock").string();
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    BOOST_REQUIRE(path.size() < sizeof addr.sun_path);
    std::copy(path.begin(), path.end(), addr.sun_path);
    BOOST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    auto v = materialize(ObjectSet(), R"([{"name":"s","hostPath":{"path":")" + path + R"(","type":"Socket"}}])", tmp.path);
    ::close(fd);
    BOOST_TEST(!v.problem, problemOf(v));
}

BOOST_AUTO_TEST_CASE(downward_api_and_projected_volumes) {
    TempDir tmp;
    ObjectSet cluster;
    cluster.put(configMap("team", "cfg", {{"a", "1"}}));
    cluster.put(secret("team", "creds", {{"token", "dG9r"}}));
    auto v = materialize(cluster, R"([
        {"name":"info","downwardAPI":{"items":[
            {"path":"index","fieldRef":{"fieldPath":"metadata.annotations['batch.kubernetes.io/job-completion-index']"}},
            {"path":"labels","fieldRef":{"fieldPath":"metadata.labels"},"mode":384},
            {"path":"cpu","resourceFieldRef":{"containerName":"c","resource":"requests.cpu","divisor":"1m"}}]}},
        {"name":"all","projected":{"defaultMode":288,"sources":[
            {"configMap":{"name":"cfg","items":[{"key":"a","path":"cfg/a"}]}},
            {"secret":{"name":"creds"}},
            {"downwardAPI":{"items":[{"path":"name","fieldRef":{"fieldPath":"metadata.name"}}]}}]}}])",
                         tmp.path);
    BOOST_TEST(!v.problem, problemOf(v));
    fs::path info = tmp.path / "volumes" / "info", all = tmp.path / "volumes" / "all";
    BOOST_TEST(readText(info / "index") == "3");
    BOOST_TEST(readText(info / "labels") == "app=\"train\"\ntier=\"gpu\"");
    BOOST_TEST(modeOf(info / "labels") == 0600u);
    BOOST_TEST(readText(info / "cpu") == "0");
    BOOST_TEST(readText(all / "cfg" / "a") == "1");
    BOOST_TEST(readText(all / "token") == "tok");
    BOOST_TEST(readText(all / "name") == "job-0-abc");
    BOOST_TEST(modeOf(all / "token") == 0440u);
    BOOST_TEST(v.readOnly.count("info") == 1u);
    BOOST_TEST(v.readOnly.count("all") == 1u);
    auto runtimeField = materialize(cluster, R"([{"name":"info","downwardAPI":{"items":[
        {"path":"node","fieldRef":{"fieldPath":"spec.nodeName"}}]}}])", tmp.path);
    BOOST_TEST(problemOf(runtimeField) == "MountVolume.SetUp failed for volume \"info\" : unsupported fieldPath: spec.nodeName");
}

BOOST_AUTO_TEST_CASE(unsupported_and_malformed_volumes_name_the_field) {
    TempDir tmp;
    const std::pair<std::string, std::string> cases[] = {
        {R"([{"name":"ok","emptyDir":{}},{"name":"data","persistentVolumeClaim":{"claimName":"pvc"}}])",
         "MountVolume.SetUp failed for volume \"data\" : spec.volumes[1]: Unsupported value: \"persistentVolumeClaim\": "
         "supported volume types: \"configMap\", \"downwardAPI\", \"emptyDir\", \"hostPath\", \"projected\", \"secret\""},
        {R"({"name":"x"})", R"(spec.volumes: Invalid value: {"name":"x"}: must be an array)"},
        {R"([{"name":"a","emptyDir":{}},"b"])", "spec.volumes[1]: Invalid value: \"b\": must be an object"},
        {R"([{"emptyDir":{}}])", "spec.volumes[0].name: Required value"},
        {R"([{"name":"../up","emptyDir":{}}])",
         "spec.volumes[0].name: Invalid value: \"../up\": a lowercase RFC 1123 label must consist of lower case "
         "alphanumeric characters or '-', and must start and end with an alphanumeric character"},
        {R"([{"name":"a","emptyDir":{}},{"name":"a","emptyDir":{}}])", "spec.volumes[1].name: Duplicate value: \"a\""},
        {R"([{"name":"a"}])", "MountVolume.SetUp failed for volume \"a\" : spec.volumes[0]: Required value: must specify a volume type"},
        {R"([{"name":"a","configMap":{"name":"cfg","defaultMode":4095}}])",
         "MountVolume.SetUp failed for volume \"a\" : spec.volumes[0].configMap.defaultMode: Invalid value: 4095: must be a "
         "number between 0 and 0777 (octal), both inclusive"},
        {R"([{"name":"a","configMap":{"name":"cfg","items":[{"key":"k","path":"../../etc/passwd"}]}}])",
         "MountVolume.SetUp failed for volume \"a\" : spec.volumes[0].configMap.items[0].path: Invalid value: "
         "\"../../etc/passwd\": invalid path: must not contain '..': ../../etc/passwd"},
        {R"([{"name":"a","configMap":{"name":"cfg","items":[{"key":"k","path":"/abs"}]}}])",
         "MountVolume.SetUp failed for volume \"a\" : spec.volumes[0].configMap.items[0].path: Invalid value: "
         "\"/abs\": invalid path: must be relative path: /abs"},
        {R"([{"name":"a","projected":{"sources":[{"clusterTrustBundle":{"name":"b","path":"b"}}]}}])",
         "MountVolume.SetUp failed for volume \"a\" : spec.volumes[0].projected.sources[0]: Invalid value: "
         "{\"clusterTrustBundle\":{\"name\":\"b\",\"path\":\"b\"}}: the local executor projects configMap, secret, "
         "downwardAPI and serviceAccountToken sources"},
    };
    for (auto const& [volumes, want] : cases) {
        auto v = materialize(ObjectSet(), volumes, tmp.path);
        BOOST_REQUIRE(v.problem);
        BOOST_TEST(v.problem->reason == "FailedMount");
        BOOST_TEST(v.problem->message == want);
    }
}

BOOST_AUTO_TEST_CASE(payload_paths_are_validated_like_the_atomic_writer) {
    BOOST_TEST(validatePayloadPath("a/b/c") == "");
    BOOST_TEST(validatePayloadPath("..a") == "invalid path: must not start with '..': ..a");
    BOOST_TEST(validatePayloadPath("a/..") == "invalid path: must not contain '..': a/..");
    BOOST_TEST(validatePayloadPath("") == "invalid path: must not be empty: \"\"");
    BOOST_TEST(validatePayloadPath("./.") == "invalid path: must not be '.'");
    BOOST_TEST(validatePayloadPath(std::string(256, 'x')) ==
               "invalid path: filenames must be less than or equal to 255 characters");
}

BOOST_AUTO_TEST_SUITE_END()
