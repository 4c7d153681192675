// The poison-pill record (core/controller/in_flight_slots.hpp) and what the TrainJob reconciler
// does with it: a child process claims a slot and dies of a fatal signal in a "plugin hook"; the
// next open sees the crash; the reconciler marks that TrainJob Failed/PluginCrashed without
// running a hook, builds the others, and builds it again once its spec changes.
#define BOOST_TEST_MODULE test_core_controller_poison_pill
#include <boost/test/unit_test.hpp>

#include "core/api/schema.hpp"
#include "core/controller/in_flight_slots.hpp"
#include "core/controller/manager.hpp"
#include "core/json/io.hpp"
#include "core/plugin/crash_context.hpp"
#include "core/server/metrics.hpp"
#include "core/store/memory_store.hpp"

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

using namespace trainer::core;
using namespace trainer::core::controller;
namespace fs = std::filesystem;

namespace {

struct TempFile {
    fs::path path;
    TempFile() {
        std::string t = (fs::temp_directory_path() / "inflight-XXXXXX").string();
        int fd = ::mkstemp(t.data());
        BOOST_REQUIRE(fd >= 0);
        ::close(fd);
        path = t;
    }
    ~TempFile() { fs::remove(path); }
};

// Runs `body` in a forked child without core dumps; the signal that ended it (0 when it exited).
int inChild(const std::function<void()>& body) {
    pid_t pid = ::fork();
    BOOST_REQUIRE(pid >= 0);
    if (pid == 0) {
        rlimit none{0, 0};
        ::setrlimit(RLIMIT_CORE, &none);
        int devnull = ::open("/dev/null", O_WRONLY);
        ::dup2(devnull, STDERR_FILENO);  // the crash report is crash_context_test's subject
        body();
        ::_exit(0);
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    return WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

// A real invalid write (not a sanitizer's report: under TRAINER_SANITIZE the checks are off here).
__attribute__((no_sanitize("undefined", "address"))) void segfault() {
    volatile int* volatile p = nullptr;
    *p = 1;
}

// A child that opens `path`, claims a slot for the TrainJob and dies of SIGSEGV in plugin
// `plugin`'s hook `hook`.
int crashWhileBuilding(const fs::path& path, const std::string& uid, const std::string& ns, const std::string& name,
                       int64_t generation, const std::string& plugin = "crashy", const std::string& hook = "EnforcePodSpec") {
    return inChild([&] {
        installCrashHandler();
        std::string error;
        auto slots = InFlightSlots::open(path.string(), error);
        if (!slots) ::_exit(2);
        InFlightSlots::Claim claim(*slots, uid, ns, name, generation);
        TrainJobScope job(ns, name);
        HookScope call(plugin, hook);
        segfault();
    });
}

json::object readExample(const std::string& file) {
    std::vector<InputDocument> docs;
    auto d = readInputs({std::string(TRAINER_SOURCE_DIR) + "/examples/" + file}, docs);
    BOOST_REQUIRE_MESSAGE(d.ok() && docs.size() == 1u, file);
    applyDefaults(docs[0].object);
    return docs[0].object;
}

ObjectKey trainJob(const std::string& name) { return trainJobKey("default", name); }
ObjectKey jobSet(const std::string& name) { return ObjectKey{"jobset.x-k8s.io/v1alpha2", "JobSet", "default", name}; }

struct Fixture {
    FakeClock clock;
    MemoryStore memory{StoreOptions{ResourceTable(), [this] { return clock.now(); }}};
    PluginRegistry registry;
    std::unique_ptr<Framework> framework;
    server::Registry metrics;
    std::unique_ptr<Manager> manager;
    Fixture() {
        registry.loadDirectory(TRAINER_PLUGIN_BUILD_DIR);
        BOOST_REQUIRE_MESSAGE(registry.find("jobset") && registry.find("plainml"), "plugins not built");
        framework = std::make_unique<Framework>(registry);
        manager = std::make_unique<Manager>(memory, registry, *framework, clock, &metrics, log::Logger("test"));
        BOOST_REQUIRE(memory.create(readExample("12-runtime-plain-with-initializers.yaml")).ok());
    }
    // A TrainJob of the example under `name`; returns its uid.
    std::string create(const std::string& name) {
        auto tj = readExample("22-trainjob-plain-initializers.yaml");
        tj["metadata"].as_object()["name"] = name;
        auto r = memory.create(tj);
        BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
        return std::string(memory.get(trainJob(name)).object.at("metadata").at("uid").as_string());
    }
    json::object status(const std::string& name) {
        auto tj = memory.get(trainJob(name)).object;
        return tj.contains("status") ? tj.at("status").as_object() : json::object();
    }
};

std::string str(const json::object* o, const char* k) {
    return o && o->contains(k) && o->at(k).is_string() ? std::string(o->at(k).as_string()) : "";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(in_flight_slots)

BOOST_AUTO_TEST_CASE(a_claim_is_cleared_when_it_ends_and_a_crash_inside_one_is_recorded) {
    TempFile f;
    {
        std::string error;
        auto slots = InFlightSlots::open(f.path.string(), error);
        BOOST_TEST_REQUIRE(slots, error);
        BOOST_TEST(slots->crashed().empty());
        { InFlightSlots::Claim c(*slots, "uid-0", "default", "quiet", 1); }
        BOOST_TEST(fs::file_size(f.path) == InFlightSlots::kSlotBytes);
        struct stat st{};
        BOOST_TEST(::stat(f.path.c_str(), &st) == 0);
        BOOST_TEST((st.st_mode & 0777) == 0600u);
    }
    BOOST_TEST(crashWhileBuilding(f.path, "uid-1", "team-a", "fault-job", 3) == SIGSEGV);
    std::string error;
    auto slots = InFlightSlots::open(f.path.string(), error);
    BOOST_TEST_REQUIRE(slots, error);
    auto crashed = slots->crashed();
    BOOST_TEST_REQUIRE(crashed.size() == 1u);
    BOOST_TEST(crashed[0].uid == "uid-1");
    BOOST_TEST(crashed[0].ns == "team-a");
    BOOST_TEST(crashed[0].name == "fault-job");
    BOOST_TEST(crashed[0].generation == 3);
    BOOST_TEST(crashed[0].plugin == "crashy");
    BOOST_TEST(crashed[0].hook == "EnforcePodSpec");
    BOOST_TEST(crashed[0].signal == SIGSEGV);
    BOOST_TEST(describeCrash(crashed[0]) ==
               "plugin crashy crashed the operator with SIGSEGV in hook EnforcePodSpec while building generation 3 of this TrainJob");
    BOOST_TEST(slots->crashOf("uid-1").has_value());
    BOOST_TEST(!slots->crashOf("uid-2").has_value());
    // The crash's slot stays taken while unresolved: a new claim uses another one.
    { InFlightSlots::Claim c(*slots, "uid-3", "default", "other", 1); }
    BOOST_TEST(fs::file_size(f.path) == 2 * InFlightSlots::kSlotBytes);
    slots->resolve("uid-1");
    BOOST_TEST(slots->crashed().empty());
    slots.reset();
    auto again = InFlightSlots::open(f.path.string(), error);
    BOOST_TEST_REQUIRE(again, error);
    BOOST_TEST(again->crashed().empty());
}

BOOST_AUTO_TEST_CASE(a_process_ending_without_a_fatal_signal_leaves_no_crash) {
    TempFile f;
    BOOST_TEST(inChild([&] {
                   std::string error;
                   auto slots = InFlightSlots::open(f.path.string(), error);
                   if (!slots) ::_exit(2);
                   InFlightSlots::Claim claim(*slots, "uid-1", "default", "killed", 1);
                   ::_exit(0);  // as after SIGKILL or the shutdown grace period: the slot stays in flight
               }) == 0);
    BOOST_TEST(fs::file_size(f.path) == InFlightSlots::kSlotBytes);
    std::string error;
    auto slots = InFlightSlots::open(f.path.string(), error);
    BOOST_TEST_REQUIRE(slots, error);
    BOOST_TEST(slots->crashed().empty());
}

BOOST_AUTO_TEST_CASE(one_process_at_a_time) {
    TempFile f;
    std::string error;
    auto first = InFlightSlots::open(f.path.string(), error);
    BOOST_TEST_REQUIRE(first, error);
    auto second = InFlightSlots::open(f.path.string(), error);
    BOOST_TEST(!second);
    BOOST_TEST(error == f.path.string() + " is held by another operator process");
    first.reset();
    BOOST_TEST(InFlightSlots::open(f.path.string(), error) != nullptr, error);
    auto missingDir = InFlightSlots::open("/nonexistent-dir/x.inflight", error);
    BOOST_TEST(!missingDir);
    BOOST_TEST(error.find("opening /nonexistent-dir/x.inflight: ") == 0u, error);
}

BOOST_AUTO_TEST_CASE(the_reconciler_marks_the_crashed_trainjob_builds_the_others_and_retries_on_a_new_spec) {
    Fixture fx;
    TempFile f;
    const std::string uid = fx.create("fault-job");
    fx.create("good-job");
    BOOST_TEST(crashWhileBuilding(f.path, uid, "default", "fault-job", 1) == SIGSEGV);

    std::string error;
    auto slots = InFlightSlots::open(f.path.string(), error);
    BOOST_TEST_REQUIRE(slots, error);
    fx.manager->setInFlightSlots(slots.get());
    fx.manager->relist();
    fx.manager->settle();

    // Marked, not built: no hook ran for it (no snapshot, no JobSet).
    auto st = fx.status("fault-job");
    auto* failed = findCondition(st, "Failed");
    BOOST_TEST_REQUIRE(failed);
    BOOST_TEST(str(failed, "status") == "True");
    BOOST_TEST(str(failed, "reason") == "PluginCrashed");
    BOOST_TEST(str(failed, "message") ==
               "plugin crashy crashed the operator with SIGSEGV in hook EnforcePodSpec while building generation 1 of "
               "this TrainJob; it is not built again until its spec changes");
    BOOST_TEST(failed->at("observedGeneration").as_int64() == 1);
    BOOST_TEST(fx.memory.get(jobSet("fault-job")).notFound());
    BOOST_TEST(fx.memory.get(ObjectKey{"v1", "ConfigMap", "default", "fault-job-runtime-snapshot"}).notFound());
    BOOST_TEST(slots->crashed().empty());  // resolved once marked
    // The others are built.
    BOOST_TEST(fx.memory.get(jobSet("good-job")).found());
    // A Warning event says why.
    bool event = false;
    for (auto const& e : fx.memory.list("v1", "Event", std::string("default")).value)
        if (e.contains("reason") && e.at("reason") == "PluginCrashed") event = true;
    BOOST_TEST(event);

    // Reconciled again (a label change, same generation): still left alone.
    auto tj = fx.memory.get(trainJob("fault-job")).object;
    tj["metadata"].as_object()["labels"] = json::object{{"touched", "yes"}};
    BOOST_TEST_REQUIRE(fx.memory.update(tj).ok());
    fx.manager->settle();
    BOOST_TEST(str(findCondition(fx.status("fault-job"), "Failed"), "reason") == "PluginCrashed");
    BOOST_TEST(fx.memory.get(jobSet("fault-job")).notFound());

    // A new spec (generation 2) is built again.
    tj = fx.memory.get(trainJob("fault-job")).object;
    tj["spec"].as_object()["trainer"].as_object()["numNodes"] = 3;  // the example has 2
    BOOST_TEST_REQUIRE(fx.memory.update(tj).ok());
    fx.manager->settle();
    BOOST_TEST(fx.memory.get(trainJob("fault-job")).object.at("metadata").at("generation").as_int64() == 2);
    BOOST_TEST(!findCondition(fx.status("fault-job"), "Failed"));
    BOOST_TEST(fx.memory.get(jobSet("fault-job")).found());
}

BOOST_AUTO_TEST_CASE(a_crash_record_of_an_older_generation_or_a_gone_trainjob_is_dropped) {
    Fixture fx;
    TempFile f;
    const std::string uid = fx.create("changed-job");
    BOOST_TEST(crashWhileBuilding(f.path, uid, "default", "changed-job", 7) == SIGSEGV);  // not its generation (1)
    BOOST_TEST(crashWhileBuilding(f.path, "uid-gone", "default", "gone-job", 1) == SIGSEGV);
    std::string error;
    auto slots = InFlightSlots::open(f.path.string(), error);
    BOOST_TEST_REQUIRE(slots, error);
    BOOST_TEST(slots->crashed().size() == 2u);
    fx.manager->setInFlightSlots(slots.get());
    BOOST_TEST(slots->crashed().empty());  // both records are dropped at once
    fx.manager->relist();
    fx.manager->settle();
    BOOST_TEST(!findCondition(fx.status("changed-job"), "Failed"));
    BOOST_TEST(fx.memory.get(jobSet("changed-job")).found());
}

BOOST_AUTO_TEST_SUITE_END()
