// The kubelet's pure parts, no root needed: the Pod status it writes (pod_status.hpp), the hosts
// files of the cluster DNS (cluster_dns.hpp), the container spec handed to the init
// (container_spec.hpp) and readiness probe parsing (readiness_probe.hpp).
#define BOOST_TEST_MODULE core_executor_kubelet_parts
#include <boost/test/unit_test.hpp>

#include "core/executor/cluster_dns.hpp"
#include "core/executor/command_runner.hpp"
#include "core/executor/container_init_binary.hpp"
#include "core/executor/container_spec.hpp"
#include "core/executor/pod_status.hpp"
#include "core/executor/readiness_probe.hpp"

#include <boost/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <sys/stat.h>

using namespace trainer::core::executor;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

using Times = std::map<std::string, std::pair<bool, std::string>>;

json::object obj(std::string_view text) { return json::parse(text).as_object(); }

const json::object& conditionOf(const json::object& status, std::string_view type) {
    for (auto const& c : status.at("conditions").as_array())
        if (c.as_object().at("type") == json::value(type)) return c.as_object();
    BOOST_FAIL("no condition " << type << " in " << json::serialize(status));
    static json::object none;
    return none;
}

std::vector<std::string> conditionTypes(const json::object& status) {
    std::vector<std::string> out;
    for (auto const& c : status.at("conditions").as_array()) out.emplace_back(c.as_object().at("type").as_string());
    return out;
}

PodRecord twoContainers() {
    return initialRecord(obj(R"({"spec":{"initContainers":[{"name":"init","image":"i:1"}],
        "containers":[{"name":"a","image":"a:1"},{"name":"b","image":"b:1"}]}})"));
}

std::string readFile(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct TempDir {
    fs::path path;
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "kubelet-parts-XXXXXX").string();
        path = ::mkdtemp(tmpl.data());
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(pod_status)

BOOST_AUTO_TEST_CASE(initial_record_waits_in_the_kubelets_reasons) {
    auto r = twoContainers();
    BOOST_TEST(r.phase == "Pending");
    BOOST_TEST(!r.initialized);
    BOOST_REQUIRE(r.initContainers.size() == 1u);
    BOOST_REQUIRE(r.containers.size() == 2u);
    BOOST_TEST(r.initContainers[0].waitingReason == "PodInitializing");
    BOOST_TEST(r.containers[1].name == "b");
    BOOST_TEST(r.containers[1].image == "b:1");
    BOOST_TEST(r.containers[0].waitingReason == "ContainerCreating");
    BOOST_TEST(initialRecord(obj(R"({"spec":{"containers":[{"name":"a"}]}})")).initialized);
    // Malformed specs give no records, not a crash.
    BOOST_TEST(initialRecord(obj(R"({"spec":{"containers":"x"}})")).containers.empty());
    BOOST_TEST(initialRecord(obj(R"({"spec":7})")).containers.empty());
}

BOOST_AUTO_TEST_CASE(pending_status_has_the_five_conditions_and_waiting_states) {
    Times times;
    auto s = renderPodStatus(twoContainers(), times, "2024-05-01T12:00:00Z");
    BOOST_TEST(s.at("phase") == "Pending");
    BOOST_TEST(conditionTypes(s) == (std::vector<std::string>{"PodReadyToStartContainers", "Initialized", "Ready",
                                                              "ContainersReady", "PodScheduled"}),
               boost::test_tools::per_element());
    BOOST_TEST(conditionOf(s, "Initialized").at("reason") == "ContainersNotInitialized");
    BOOST_TEST(conditionOf(s, "Ready").at("reason") == "ContainersNotReady");
    BOOST_TEST(conditionOf(s, "PodScheduled").at("status") == "True");
    BOOST_TEST(conditionOf(s, "Ready").at("lastProbeTime").is_null());
    auto const& init = s.at("initContainerStatuses").as_array()[0].as_object();
    BOOST_TEST(init.at("state").as_object().at("waiting").as_object().at("reason") == "PodInitializing");
    auto const& a = s.at("containerStatuses").as_array()[0].as_object();
    BOOST_TEST(a.at("name") == "a");
    BOOST_TEST(a.at("ready") == false);
    BOOST_TEST(a.at("started") == false);
    BOOST_TEST(a.at("restartCount") == 0);
    BOOST_TEST(a.at("lastState").as_object().empty());
    BOOST_TEST(!s.contains("podIP"));
    BOOST_TEST(!s.contains("startTime"));
}

BOOST_AUTO_TEST_CASE(transition_times_are_stable_until_the_status_changes) {
    Times times;
    auto r = twoContainers();
    r.sandboxReady = true;
    auto first = renderPodStatus(r, times, "2024-05-01T12:00:00Z");
    auto again = renderPodStatus(r, times, "2024-05-01T12:05:00Z");
    BOOST_TEST(conditionOf(again, "Ready").at("lastTransitionTime") == "2024-05-01T12:00:00Z");
    BOOST_TEST(json::serialize(first) == json::serialize(again));
    r.initialized = true;
    for (auto& c : r.containers) {
        c.state = ContainerRecord::State::Running;
        c.startedAt = "2024-05-01T12:06:00Z";
        c.ready = true;
    }
    r.phase = "Running";
    auto running = renderPodStatus(r, times, "2024-05-01T12:10:00Z");
    BOOST_TEST(conditionOf(running, "Ready").at("status") == "True");
    BOOST_TEST(!conditionOf(running, "Ready").contains("reason"));
    BOOST_TEST(conditionOf(running, "Ready").at("lastTransitionTime") == "2024-05-01T12:10:00Z");
    BOOST_TEST(conditionOf(running, "Initialized").at("lastTransitionTime") == "2024-05-01T12:10:00Z");
    BOOST_TEST(conditionOf(running, "PodScheduled").at("lastTransitionTime") == "2024-05-01T12:00:00Z");
    BOOST_TEST(conditionOf(running, "PodReadyToStartContainers").at("lastTransitionTime") == "2024-05-01T12:00:00Z");
    auto const& a = running.at("containerStatuses").as_array()[0].as_object();
    BOOST_TEST(a.at("state").as_object().at("running").as_object().at("startedAt") == "2024-05-01T12:06:00Z");
    BOOST_TEST(a.at("started") == true);
    BOOST_TEST(a.at("ready") == true);
}

BOOST_AUTO_TEST_CASE(one_unready_container_keeps_the_pod_unready) {
    Times times;
    auto r = twoContainers();
    r.initialized = true;
    r.phase = "Running";
    r.containers[0].state = ContainerRecord::State::Running;
    r.containers[0].ready = true;
    auto s = renderPodStatus(r, times, "2024-05-01T12:00:00Z");
    BOOST_TEST(conditionOf(s, "Ready").at("status") == "False");
    BOOST_TEST(conditionOf(s, "ContainersReady").at("reason") == "ContainersNotReady");
}

BOOST_AUTO_TEST_CASE(terminated_and_restarted_containers) {
    Times times;
    auto r = initialRecord(obj(R"({"spec":{"containers":[{"name":"a","image":"a:1"}]}})"));
    r.phase = "Failed";
    r.podIP = "10.200.0.2";
    r.hostIP = "10.200.0.1";
    r.startTime = "2024-05-01T12:00:00Z";
    auto& c = r.containers[0];
    c.state = ContainerRecord::State::Terminated;
    c.containerId = "local://42";
    c.restartCount = 2;
    c.terminated = {3, "Error", "", "2024-05-01T12:01:00Z", "2024-05-01T12:02:00Z", "local://42"};
    c.lastState = TerminatedState{128, "StartError", "exec: boom", "t1", "t2", ""};
    auto s = renderPodStatus(r, times, "2024-05-01T12:03:00Z");
    BOOST_TEST(s.at("phase") == "Failed");
    BOOST_TEST(s.at("podIP") == "10.200.0.2");
    BOOST_TEST(s.at("podIPs").as_array()[0].as_object().at("ip") == "10.200.0.2");
    BOOST_TEST(s.at("hostIPs").as_array()[0].as_object().at("ip") == "10.200.0.1");
    BOOST_TEST(conditionOf(s, "Ready").at("reason") == "PodCompleted");
    BOOST_TEST(conditionOf(s, "PodReadyToStartContainers").at("status") == "False");
    auto const& cs = s.at("containerStatuses").as_array()[0].as_object();
    BOOST_TEST(cs.at("containerID") == "local://42");
    BOOST_TEST(cs.at("restartCount") == 2);
    auto const& t = cs.at("state").as_object().at("terminated").as_object();
    BOOST_TEST(t.at("exitCode") == 3);
    BOOST_TEST(t.at("reason") == "Error");
    BOOST_TEST(!t.contains("message"));
    auto const& last = cs.at("lastState").as_object().at("terminated").as_object();
    BOOST_TEST(last.at("reason") == "StartError");
    BOOST_TEST(last.at("message") == "exec: boom");
    BOOST_TEST(!s.contains("initContainerStatuses"));
}

BOOST_AUTO_TEST_CASE(disruption_target_comes_first_when_disrupted) {
    Times times;
    auto r = initialRecord(obj(R"({"spec":{"containers":[{"name":"a"}]}})"));
    r.phase = "Failed";
    r.reason = "Terminated";
    r.message = "gone";
    r.disrupted = true;
    auto s = renderPodStatus(r, times, "2024-05-01T12:00:00Z");
    BOOST_TEST(conditionTypes(s).front() == "DisruptionTarget");
    BOOST_TEST(conditionOf(s, "DisruptionTarget").at("status") == "True");
    BOOST_TEST(conditionOf(s, "DisruptionTarget").at("reason") == "TerminationByKubelet");
    BOOST_TEST(s.at("reason") == "Terminated");
    BOOST_TEST(s.at("message") == "gone");
}

BOOST_AUTO_TEST_CASE(waiting_message_is_shown_only_when_set) {
    Times times;
    auto r = initialRecord(obj(R"({"spec":{"containers":[{"name":"a"}]}})"));
    auto plain = renderPodStatus(r, times, "t");
    BOOST_TEST(!plain.at("containerStatuses").as_array()[0].as_object().at("state").as_object().at("waiting").as_object().contains("message"));
    r.containers[0].waitingReason = "CreateContainerConfigError";
    r.containers[0].waitingMessage = "configmap \"cfg\" not found";
    auto s = renderPodStatus(r, times, "t");
    auto const& w = s.at("containerStatuses").as_array()[0].as_object().at("state").as_object().at("waiting").as_object();
    BOOST_TEST(w.at("reason") == "CreateContainerConfigError");
    BOOST_TEST(w.at("message") == "configmap \"cfg\" not found");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(cluster_dns)

BOOST_AUTO_TEST_CASE(hosts_list_the_kubelet_entries_then_the_pods_of_the_namespace) {
    ClusterDns dns;
    dns.add("u1", {"team", "w-0", "grp", "10.200.0.2", ""});
    dns.add("u2", {"team", "w-1", "grp", "10.200.0.3", ""});
    dns.add("u3", {"team", "solo", "", "10.200.0.4", ""});
    dns.add("u4", {"other", "x-0", "grp", "10.200.0.5", ""});
    dns.add("u5", {"team", "pending", "grp", "", ""});
    const std::string hosts = dns.hostsFor("u1");
    BOOST_TEST(hosts.find("127.0.0.1\tlocalhost\n") != std::string::npos, hosts);
    BOOST_TEST(hosts.find("10.200.0.2\tw-0.grp.team.svc.cluster.local\tw-0\n") != std::string::npos, hosts);
    BOOST_TEST(hosts.find("10.200.0.3\tw-1.grp.team.svc.cluster.local\tw-1.grp.team.svc\tw-1.grp\n") != std::string::npos,
               hosts);
    BOOST_TEST(hosts.find("10.200.0.4") == std::string::npos, hosts);  // no subdomain: not in DNS
    BOOST_TEST(hosts.find("x-0") == std::string::npos, hosts);         // another namespace
    BOOST_TEST(hosts.find("pending") == std::string::npos, hosts);     // no address
    // A pod without a subdomain still gets its own name, short form only.
    const std::string solo = dns.hostsFor("u3");
    BOOST_TEST(solo.find("10.200.0.4\tsolo\n") != std::string::npos, solo);
    BOOST_TEST(solo.find("10.200.0.2\tw-0.grp.team.svc.cluster.local") != std::string::npos, solo);
    BOOST_TEST(dns.hostsFor("unknown").empty());
}

BOOST_AUTO_TEST_CASE(files_are_rewritten_in_place_keeping_the_inode) {
    TempDir tmp;
    const fs::path a = tmp.path / "a-hosts", b = tmp.path / "b-hosts";
    ClusterDns dns;
    dns.add("a", {"team", "a", "grp", "10.200.0.2", a.string()});
    struct stat before {};
    BOOST_REQUIRE(::stat(a.c_str(), &before) == 0);
    BOOST_TEST(readFile(a).find("b.grp") == std::string::npos);
    dns.add("b", {"team", "b", "grp", "10.200.0.3", b.string()});
    BOOST_TEST(readFile(a).find("10.200.0.3\tb.grp.team.svc.cluster.local") != std::string::npos, readFile(a));
    BOOST_TEST(readFile(b) == dns.hostsFor("b"));
    dns.remove("b");
    BOOST_TEST(readFile(a).find("b.grp") == std::string::npos, readFile(a));
    BOOST_TEST(readFile(a) == dns.hostsFor("a"));
    struct stat after {};
    BOOST_REQUIRE(::stat(a.c_str(), &after) == 0);
    BOOST_TEST(after.st_ino == before.st_ino);
    dns.remove("b");  // twice: nothing happens
    dns.remove("a");
    BOOST_TEST(dns.hostsFor("a").empty());
}

BOOST_AUTO_TEST_CASE(header_names_the_pod_itself) {
    auto h = kubeletHostsHeader({"team", "w-0", "grp", "10.200.0.2", ""});
    BOOST_TEST(h.rfind("# Kubernetes-managed hosts file", 0) == 0, h);
    BOOST_TEST(h.find("::1\tlocalhost ip6-localhost ip6-loopback\n") != std::string::npos);
    BOOST_TEST(h.substr(h.size() - std::string("10.200.0.2\tw-0.grp.team.svc.cluster.local\tw-0\n").size()) ==
               "10.200.0.2\tw-0.grp.team.svc.cluster.local\tw-0\n");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(container_spec)

BOOST_AUTO_TEST_CASE(round_trip_keeps_every_field) {
    ContainerSpec s;
    s.argv = {"sh", "-c", "echo \"$X\"\n\ttab"};
    s.env = {"PATH=/bin", "X=a=b", "EMPTY="};
    s.workingDir = "/work dir";
    s.scratchDir = "/state/run/u/work";
    s.hostname = "w-0";
    s.netns = "/run/netns/trn0-2";
    s.hostsFile = "/state/run/u/hosts";
    s.mounts = {{"/src/a", "/dst/a", false}, {"/src/b", "/etc/b", true}};
    s.logFile = "/state/pods/x/c/0.log";
    s.resultFile = "/state/run/u/c-0.result";
    s.cgroup = "/sys/fs/cgroup/trainer-operator/u-c";
    std::string error;
    auto d = decodeSpec(encodeSpec(s), error);
    BOOST_REQUIRE_MESSAGE(d, error);
    BOOST_TEST(d->argv == s.argv, boost::test_tools::per_element());
    BOOST_TEST(d->env == s.env, boost::test_tools::per_element());
    BOOST_TEST(d->workingDir == s.workingDir);
    BOOST_TEST(d->scratchDir == s.scratchDir);
    BOOST_TEST(d->hostname == s.hostname);
    BOOST_TEST(d->netns == s.netns);
    BOOST_TEST(d->hostsFile == s.hostsFile);
    BOOST_TEST(d->logFile == s.logFile);
    BOOST_TEST(d->resultFile == s.resultFile);
    BOOST_TEST(d->cgroup == s.cgroup);
    BOOST_REQUIRE(d->mounts.size() == 2u);
    BOOST_TEST(d->mounts[1].source == "/src/b");
    BOOST_TEST(d->mounts[1].target == "/etc/b");
    BOOST_TEST(d->mounts[1].readOnly);
    BOOST_TEST(!d->mounts[0].readOnly);
    BOOST_TEST(error.empty());
}

BOOST_AUTO_TEST_CASE(bad_input_is_an_error_not_a_crash) {
    for (std::string text : {"", "not json", "[1,2]", "{}", R"({"argv":[]})", R"({"argv":"sh"})", R"({"argv":["sh",1]})",
                             R"({"argv":["sh"],"env":"X=1"})", R"({"argv":["sh"],"env":[null]})"}) {
        BOOST_TEST_CONTEXT(text) {
            std::string error;
            BOOST_TEST(!decodeSpec(text, error));
            BOOST_TEST(!error.empty());
        }
    }
    // Wrongly typed optional fields read as empty.
    std::string error;
    auto d = decodeSpec(R"({"argv":["true"],"hostname":5,"mounts":[7,{"source":"/a","target":"/b","readOnly":"yes"}]})", error);
    BOOST_REQUIRE_MESSAGE(d, error);
    BOOST_TEST(d->hostname.empty());
    BOOST_REQUIRE(d->mounts.size() == 1u);
    BOOST_TEST(!d->mounts[0].readOnly);
}

BOOST_AUTO_TEST_CASE(failure_round_trip_and_bad_input) {
    auto f = decodeFailure(encodeFailure({"StartError", "exec: \"x\": executable file not found in $PATH", 128}));
    BOOST_REQUIRE(f);
    BOOST_TEST(f->reason == "StartError");
    BOOST_TEST(f->message == "exec: \"x\": executable file not found in $PATH");
    BOOST_TEST(f->exitCode == 128);
    BOOST_TEST(!decodeFailure(""));
    BOOST_TEST(!decodeFailure("{}"));
    BOOST_TEST(!decodeFailure(R"({"message":"no reason"})"));
    auto noCode = decodeFailure(R"({"reason":"StartError","exitCode":"x"})");
    BOOST_REQUIRE(noCode);
    BOOST_TEST(noCode->exitCode == 128);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(readiness_probe)

ProbeSpec parse(std::string_view container, std::string& error) { return readinessProbeOf(obj(container), error); }

BOOST_AUTO_TEST_CASE(no_probe_is_kind_none) {
    std::string error;
    BOOST_TEST((parse(R"({"name":"c"})", error).kind == ProbeSpec::Kind::None));
    BOOST_TEST(error.empty());
}

BOOST_AUTO_TEST_CASE(http_get_with_named_port_and_defaults) {
    std::string error;
    auto p = parse(R"({"name":"c","ports":[{"name":"metrics","containerPort":9090},{"name":"http","containerPort":8080}],
        "readinessProbe":{"httpGet":{"port":"http","path":"/healthz"}}})", error);
    BOOST_TEST(error.empty(), error);
    BOOST_TEST((p.kind == ProbeSpec::Kind::HttpGet));
    BOOST_TEST(p.port == 8080);
    BOOST_TEST(p.path == "/healthz");
    BOOST_TEST(p.periodSeconds == 10);
    BOOST_TEST(p.timeoutSeconds == 1);
    BOOST_TEST(p.successThreshold == 1);
    BOOST_TEST(p.failureThreshold == 3);
    BOOST_TEST(p.initialDelaySeconds == 0);
}

BOOST_AUTO_TEST_CASE(tcp_socket_with_number_and_timings) {
    std::string error;
    auto p = parse(R"({"name":"c","readinessProbe":{"tcpSocket":{"port":6379},"initialDelaySeconds":2,
        "periodSeconds":0,"timeoutSeconds":3,"successThreshold":2,"failureThreshold":5}})", error);
    BOOST_TEST(error.empty(), error);
    BOOST_TEST((p.kind == ProbeSpec::Kind::TcpSocket));
    BOOST_TEST(p.port == 6379);
    BOOST_TEST(p.initialDelaySeconds == 2);
    BOOST_TEST(p.periodSeconds == 1);  // at least 1
    BOOST_TEST(p.timeoutSeconds == 3);
    BOOST_TEST(p.successThreshold == 2);
    BOOST_TEST(p.failureThreshold == 5);
}

BOOST_AUTO_TEST_CASE(exec_command) {
    std::string error;
    auto p = parse(R"({"name":"c","readinessProbe":{"exec":{"command":["cat","/tmp/ready"]}}})", error);
    BOOST_TEST(error.empty(), error);
    BOOST_TEST((p.kind == ProbeSpec::Kind::Exec));
    BOOST_TEST(p.command == (std::vector<std::string>{"cat", "/tmp/ready"}), boost::test_tools::per_element());
    parse(R"({"name":"c","readinessProbe":{"exec":{"command":[]}}})", error);
    BOOST_TEST(error == "readinessProbe.exec.command: Required value");
}

BOOST_AUTO_TEST_CASE(bad_ports_name_the_field) {
    for (std::string c : {R"({"name":"c","readinessProbe":{"httpGet":{"port":"nosuch"}}})",
                          R"({"name":"c","ports":[{"name":"http","containerPort":80}],"readinessProbe":{"tcpSocket":{"port":"HTTP"}}})",
                          R"({"name":"c","readinessProbe":{"tcpSocket":{"port":70000}}})",
                          R"({"name":"c","readinessProbe":{"tcpSocket":{"port":0}}})",
                          R"({"name":"c","readinessProbe":{"tcpSocket":{}}})",
                          R"({"name":"c","readinessProbe":{"httpGet":{"port":1.5}}})"}) {
        BOOST_TEST_CONTEXT(c) {
            std::string error;
            parse(c, error);
            BOOST_TEST(error.find("readinessProbe") != std::string::npos, error);
            BOOST_TEST(error.find("port") != std::string::npos, error);
        }
    }
}

BOOST_AUTO_TEST_CASE(no_handler_is_an_error) {
    std::string error;
    parse(R"({"name":"c","readinessProbe":{"periodSeconds":3}})", error);
    BOOST_TEST(error == "readinessProbe: must specify a handler type");
}

BOOST_AUTO_TEST_CASE(probe_of_nothing_listening_fails) {
    ProbeSpec p;
    p.kind = ProbeSpec::Kind::TcpSocket;
    p.port = 1;
    BOOST_TEST(!runProbe(p, "127.0.0.1", 0));
    p.kind = ProbeSpec::Kind::HttpGet;
    BOOST_TEST(!runProbe(p, "not an ip", 0));
    BOOST_TEST(runProbe(ProbeSpec{}, "", 0));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(command_runner)

BOOST_AUTO_TEST_CASE(output_and_exit_code_come_back_and_stdin_is_empty) {
    auto r = runCommand({"sh", "-c", "echo out; echo err >&2; exit 4"});
    BOOST_TEST(r.exitCode == 4);
    BOOST_TEST(r.output == "out\nerr");
    auto none = runCommand({"cat"});  // stdin is /dev/null: cat ends at once
    BOOST_TEST(none.ok());
    BOOST_TEST(none.output.empty());
}

BOOST_AUTO_TEST_CASE(a_missing_tool_is_named) {
    auto r = runCommand({"trainer-no-such-tool"});
    BOOST_TEST(r.exitCode == -1);
    BOOST_TEST(r.output.find("trainer-no-such-tool") != std::string::npos, r.output);
}

BOOST_AUTO_TEST_SUITE_END()

// Which binary runs container inits: an install-like tree (bin/ and libexec/trainer-operator/)
// in a temporary directory; the operator's binary itself need not exist for the choice.
struct InitTree {
    TempDir root;
    fs::path op = root.path / "bin" / "trainer-operator";
    fs::path helperDir = root.path / "libexec" / "trainer-operator";
    fs::path helper = helperDir / "trainer-container-init";
    InitTree() {
        fs::create_directories(op.parent_path());
        fs::create_directories(helperDir);
        ::chmod(root.path.c_str(), 0755);
        ::chmod(helperDir.c_str(), 0755);
        std::ofstream(helper) << "#!/bin/sh\n";
        ::chmod(helper.c_str(), 0755);
    }
};

BOOST_AUTO_TEST_SUITE(container_init_binary)

BOOST_AUTO_TEST_CASE(the_installed_helper_beside_the_binary_is_chosen) {
    InitTree t;
    auto c = chooseContainerInit(t.op.string());
    BOOST_TEST(c.path == t.helper.string());
    BOOST_TEST(c.notUsed.empty());
    BOOST_TEST(c.helperPresent);
}

BOOST_AUTO_TEST_CASE(without_the_helper_the_operators_binary_runs_inits) {
    InitTree t;
    fs::remove(t.helper);
    auto c = chooseContainerInit(t.op.string());
    BOOST_TEST(c.path == t.op.string());
    BOOST_TEST(!c.helperPresent);
    BOOST_TEST(c.notUsed.find(t.helper.string()) != std::string::npos, c.notUsed);
}

BOOST_AUTO_TEST_CASE(an_untrusted_helper_is_refused_saying_why) {
    struct Case {
        const char* what;
        std::function<void(InitTree&)> spoil;
        std::string expect;
    };
    const std::vector<Case> cases{
        {"group-writable file", [](InitTree& t) { ::chmod(t.helper.c_str(), 0775); }, "is writable by group or others"},
        {"others-writable file", [](InitTree& t) { ::chmod(t.helper.c_str(), 0757); }, "is writable by group or others"},
        {"not executable", [](InitTree& t) { ::chmod(t.helper.c_str(), 0644); }, "is not executable"},
        {"writable directory", [](InitTree& t) { ::chmod(t.helperDir.c_str(), 0777); }, "is writable by group or others"},
        {"a directory", [](InitTree& t) { fs::remove(t.helper); fs::create_directory(t.helper); }, "is not a regular file"},
    };
    for (auto const& k : cases) {
        InitTree t;
        k.spoil(t);
        auto c = chooseContainerInit(t.op.string());
        BOOST_TEST(c.path == t.op.string(), k.what);
        BOOST_TEST(c.helperPresent, k.what);
        BOOST_TEST(c.notUsed.find(k.expect) != std::string::npos, k.what << ": " << c.notUsed);
    }
}

BOOST_AUTO_TEST_SUITE_END()
