// The crash context (core/plugin/crash_context.hpp): scopes nest and restore, every thread's
// calls are listed with their age, and a fatal signal in a forked child is reported (signal,
// plugin, hook, TrainJob, backtrace) and kills the child with that same signal.
#define BOOST_TEST_MODULE test_core_plugin_crash
#include <boost/test/unit_test.hpp>

#include "core/plugin/crash_context.hpp"
#include "core/plugin/registry.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

using namespace trainer::core;
using namespace std::chrono_literals;

namespace {

struct ChildOutcome {
    int signal = 0;     // what killed it, 0 when it exited
    int exitCode = -1;  // when it exited
    std::string err;    // its stderr
};

// Runs `body` in a forked child (no core dump) and collects how it ended and its stderr.
ChildOutcome inChild(const std::function<void()>& body) {
    int fds[2];
    BOOST_REQUIRE(::pipe(fds) == 0);
    pid_t pid = ::fork();
    BOOST_REQUIRE(pid >= 0);
    if (pid == 0) {
        ::close(fds[0]);
        ::dup2(fds[1], STDERR_FILENO);
        rlimit none{0, 0};
        ::setrlimit(RLIMIT_CORE, &none);
        body();
        ::_exit(0);
    }
    ::close(fds[1]);
    ChildOutcome out;
    char buf[4096];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) out.err.append(buf, static_cast<size_t>(n));
    ::close(fds[0]);
    int st = 0;
    ::waitpid(pid, &st, 0);
    if (WIFSIGNALED(st)) out.signal = WTERMSIG(st);
    if (WIFEXITED(st)) out.exitCode = WEXITSTATUS(st);
    return out;
}

// A real invalid write (not a sanitizer's report: under TRAINER_SANITIZE the checks are off here).
__attribute__((no_sanitize("undefined", "address"))) void segfault() {
    volatile int* volatile p = nullptr;
    *p = 42;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_SUITE(crash_context)

BOOST_AUTO_TEST_CASE(scopes_nest_restore_and_list_every_thread) {
    BOOST_TEST(inFlightCalls().empty());
    {
        TrainJobScope job("default", "job-a");
        BOOST_TEST(inFlightCalls().empty());  // a TrainJob alone is not a call
        HookScope outer("alpha", "EnforceMLPolicy");
        {
            HookScope inner("beta", "ComponentBuilder");
            auto calls = inFlightCalls();
            BOOST_TEST_REQUIRE(calls.size() == 1u);
            BOOST_TEST(calls[0].plugin == "beta");
            BOOST_TEST(calls[0].hook == "ComponentBuilder");
            BOOST_TEST(calls[0].trainJob == "default/job-a");
        }
        auto calls = inFlightCalls();
        BOOST_TEST_REQUIRE(calls.size() == 1u);
        BOOST_TEST(calls[0].plugin == "alpha");
        BOOST_TEST(calls[0].hook == "EnforceMLPolicy");

        // Another thread's call is listed beside this one.
        std::promise<void> inside, leave;
        std::thread other([&] {
            HookScope h("gamma", "CustomValidation");
            inside.set_value();
            leave.get_future().wait();
        });
        inside.get_future().wait();
        calls = inFlightCalls();
        BOOST_TEST(calls.size() == 2u);
        bool sawGamma = false;
        for (auto const& c : calls)
            if (c.plugin == "gamma") {
                sawGamma = true;
                BOOST_TEST(c.trainJob.empty());  // that thread works on no TrainJob
                BOOST_TEST(describe(c).rfind("plugin gamma, hook CustomValidation, running for ", 0) == 0u, describe(c));
            }
        BOOST_TEST(sawGamma);
        // Every call is older than -1ms, none is older than an hour.
        std::string stuck = stuckCalls([](const std::string&) { return std::chrono::milliseconds(-1); });
        BOOST_TEST(contains(stuck, "plugin alpha, hook EnforceMLPolicy, TrainJob default/job-a, running for "), stuck);
        BOOST_TEST(contains(stuck, "plugin gamma, hook CustomValidation, running for "), stuck);
        BOOST_TEST(contains(stuck, "(longer than "), stuck);
        BOOST_TEST(stuckCalls([](const std::string&) { return std::chrono::milliseconds(3'600'000); }).empty());
        // Per plugin limits: only alpha's is exceeded.
        std::string perPlugin = stuckCalls([](const std::string& p) {
            return p == "alpha" ? std::chrono::milliseconds(-1) : std::chrono::milliseconds(3'600'000);
        });
        BOOST_TEST(contains(perPlugin, "plugin alpha"), perPlugin);
        BOOST_TEST(!contains(perPlugin, "gamma"), perPlugin);
        leave.set_value();
        other.join();
    }
    BOOST_TEST(inFlightCalls().empty());
}

BOOST_AUTO_TEST_CASE(long_values_are_cut_to_the_record) {
    TrainJobScope job("default", std::string(400, 'n'));
    HookScope hook(std::string(600, 'p'), "EnforcePodSpec");
    auto calls = inFlightCalls();
    BOOST_TEST_REQUIRE(calls.size() == 1u);
    BOOST_TEST(calls[0].plugin == std::string(kCrashPluginBytes - 1, 'p'));
    BOOST_TEST(calls[0].trainJob == "default/" + std::string(kCrashNameBytes - 1, 'n'));
}

BOOST_AUTO_TEST_CASE(a_segfault_in_a_hook_names_plugin_hook_trainjob_and_dies_of_sigsegv) {
    auto out = inChild([] {
        installCrashHandler();
        TrainJobScope job("team-a", "fault-job");
        HookScope hook("crashy", "EnforcePodSpec");
        segfault();
    });
    BOOST_TEST(out.signal == SIGSEGV, out.err);
    BOOST_TEST(contains(out.err, "trainer-operator: fatal signal SIGSEGV (fault address 0x0) in plugin crashy, hook "
                                 "EnforcePodSpec, TrainJob team-a/fault-job\n"),
               out.err);
    BOOST_TEST(contains(out.err, "trainer-operator: backtrace (most recent call first):\n"), out.err);
    BOOST_TEST(contains(out.err, "[0x"), out.err);  // at least one frame printed by backtrace_symbols_fd
}

BOOST_AUTO_TEST_CASE(abort_with_no_plugin_running_still_reports_the_signal_and_backtrace) {
    auto out = inChild([] {
        installCrashHandler();
        std::abort();
    });
    BOOST_TEST(out.signal == SIGABRT, out.err);
    BOOST_TEST(contains(out.err, "trainer-operator: fatal signal SIGABRT (no plugin hook was running)\n"), out.err);
    BOOST_TEST(contains(out.err, "backtrace"), out.err);
}

BOOST_AUTO_TEST_CASE(the_scope_ends_with_the_call) {
    // A crash after the hook returned is not blamed on it.
    auto out = inChild([] {
        installCrashHandler();
        TrainJobScope job("default", "job-b");
        { HookScope hook("innocent", "ComponentBuilder"); }
        std::raise(SIGFPE);
    });
    BOOST_TEST(out.signal == SIGFPE, out.err);
    BOOST_TEST(contains(out.err, "fatal signal SIGFPE (no plugin hook was running), TrainJob default/job-b\n"), out.err);
    BOOST_TEST(!contains(out.err, "innocent"), out.err);
}

BOOST_AUTO_TEST_CASE(a_stack_overflow_is_reported_on_the_alternate_stack) {
    auto out = inChild([] {
        installCrashHandler();
        HookScope hook("deep", "EnforceMLPolicy");
        std::function<int(int)> recurse = [&](int n) {
            volatile char pad[4096];
            pad[0] = static_cast<char>(n);
            return recurse(n + 1) + pad[0];
        };
        recurse(0);
    });
    BOOST_TEST(out.signal == SIGSEGV, out.err);
    BOOST_TEST(contains(out.err, "fatal signal SIGSEGV (fault address 0x"), out.err);
    BOOST_TEST(contains(out.err, "in plugin deep, hook EnforceMLPolicy"), out.err);
}

BOOST_AUTO_TEST_CASE(the_crash_note_is_written_where_the_scope_points) {
    const auto path = std::filesystem::temp_directory_path() / ("crash-note-" + std::to_string(::getpid()));
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    BOOST_REQUIRE(fd >= 0);
    auto out = inChild([fd] {
        installCrashHandler();
        CrashNoteScope note(fd, 100);
        HookScope hook("crashy", "CustomValidation");
        segfault();
    });
    BOOST_TEST(out.signal == SIGSEGV, out.err);
    CrashNote note{};
    BOOST_TEST_REQUIRE(::pread(fd, &note, sizeof note, 100) == static_cast<ssize_t>(sizeof note));
    BOOST_TEST(std::memcmp(note.magic, kCrashNoteMagic, sizeof note.magic) == 0);
    BOOST_TEST(note.signal == SIGSEGV);
    BOOST_TEST(std::string(note.plugin) == "crashy");
    BOOST_TEST(std::string(note.hook) == "CustomValidation");
    // Outside a CrashNoteScope nothing is written.
    auto quiet = inChild([fd] {
        installCrashHandler();
        { CrashNoteScope note(fd, 2000); }
        std::raise(SIGBUS);
    });
    BOOST_TEST(quiet.signal == SIGBUS, quiet.err);
    char after[8] = {};
    BOOST_TEST(::pread(fd, after, sizeof after, 2000) == 0);  // the file was never written there
    ::close(fd);
    std::filesystem::remove(path);
}

// The loader's scopes (registry.cpp): a shipped file loads in this process at once, so a crash
// in its constructor or create() is the operator's, and is named.
BOOST_AUTO_TEST_CASE(a_crash_while_loading_or_in_create_names_the_file_or_plugin_and_the_step) {
    const std::string dir = FAULT_FIXTURE_DIR;
    struct Case {
        std::string file;
        std::string expect;
    };
    const std::vector<Case> cases{{"fault_create.so", " in plugin fault-create, hook create\n"},
                                  {"fault_ctor.so", " in plugin " + dir + "/fault_ctor.so, hook load\n"}};
    for (auto const& c : cases) {
        BOOST_TEST_CONTEXT(c.file) {
            const std::string path = dir + "/" + c.file;
            std::string sum;
            if (FILE* p = ::popen(("sha256sum '" + path + "'").c_str(), "r")) {
                char buf[128] = {};
                if (std::fgets(buf, sizeof buf, p)) sum = std::string(buf).substr(0, 64);
                ::pclose(p);
            }
            BOOST_TEST_REQUIRE(sum.size() == 64u);
            PluginOptions options;
            options.shippedHashes = {sum};  // as if shipped: no plugin-host probe first
            auto out = inChild([&] {
                installCrashHandler();
                PluginRegistry registry;
                registry.loadFile(path, options);
            });
            BOOST_TEST(out.signal == SIGSEGV, out.err);
            BOOST_TEST(contains(out.err, "trainer-operator: fatal signal SIGSEGV (fault address 0x0)" + c.expect), out.err);
        }
    }
}

BOOST_AUTO_TEST_CASE(signal_names) {
    BOOST_TEST(signalName(SIGSEGV) == "SIGSEGV");
    BOOST_TEST(signalName(SIGABRT) == "SIGABRT");
    BOOST_TEST(signalName(SIGILL) == "SIGILL");
    BOOST_TEST(signalName(64) == "signal 64");
}

BOOST_AUTO_TEST_SUITE_END()
