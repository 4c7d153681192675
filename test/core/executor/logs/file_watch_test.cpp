// core/executor/file_watch.hpp on real files: a write calls the watch (what wakes a log follower),
// every watch of one file is called, a destroyed watch is never called again, and a file that
// cannot be watched is an error naming it. Each wait is for the call itself, bounded generously.
#define BOOST_TEST_MODULE test_core_executor_file_watch
#include <boost/test/unit_test.hpp>

#include "core/executor/file_watch.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

using trainer::core::executor::FileWatch;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// Counts calls; waits for the count to reach a number.
struct Calls {
    std::mutex mu;
    std::condition_variable cv;
    int n = 0;
    std::function<void()> fn() {
        return [this] {
            std::lock_guard g(mu);
            ++n;
            cv.notify_all();
        };
    }
    bool waitFor(int want) {
        std::unique_lock lock(mu);
        return cv.wait_for(lock, 30s, [&] { return n >= want; });
    }
    int count() {
        std::lock_guard g(mu);
        return n;
    }
};

struct TempFile {
    fs::path path;
    TempFile() {
        std::string t = (fs::temp_directory_path() / "file-watch-XXXXXX").string();
        int fd = ::mkstemp(t.data());
        BOOST_REQUIRE(fd >= 0);
        ::close(fd);
        path = t;
    }
    ~TempFile() {
        std::error_code ec;
        fs::remove(path, ec);
    }
    void append(const std::string& text) const { std::ofstream(path, std::ios::app) << text; }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_write_calls_every_watch_of_the_file) {
    TempFile f;
    Calls a, b;
    std::string error;
    auto wa = FileWatch::start(f.path, a.fn(), error);
    BOOST_REQUIRE_MESSAGE(wa, error);
    auto wb = FileWatch::start(f.path, b.fn(), error);
    BOOST_REQUIRE_MESSAGE(wb, error);
    f.append("line\n");
    BOOST_TEST(a.waitFor(1));
    BOOST_TEST(b.waitFor(1));
}

BOOST_AUTO_TEST_CASE(a_destroyed_watch_is_not_called_and_the_others_still_are) {
    TempFile f;
    Calls gone, kept;
    std::string error;
    auto wg = FileWatch::start(f.path, gone.fn(), error);
    auto wk = FileWatch::start(f.path, kept.fn(), error);
    BOOST_REQUIRE(wg && wk);
    wg.reset();  // after this no call of `gone` runs
    const int before = gone.count();
    f.append("one\n");
    BOOST_TEST(kept.waitFor(1));
    f.append("two\n");
    BOOST_TEST(kept.waitFor(2));  // the write after it was seen as well: `gone` had its chance twice
    BOOST_TEST(gone.count() == before);
}

BOOST_AUTO_TEST_CASE(the_last_watch_of_a_file_can_be_made_again) {
    TempFile f;
    std::string error;
    {
        Calls first;
        auto w = FileWatch::start(f.path, first.fn(), error);
        BOOST_REQUIRE_MESSAGE(w, error);
    }  // the file's inotify watch is removed with its last follower
    Calls again;
    auto w = FileWatch::start(f.path, again.fn(), error);
    BOOST_REQUIRE_MESSAGE(w, error);
    f.append("x");
    BOOST_TEST(again.waitFor(1));
}

BOOST_AUTO_TEST_CASE(a_missing_file_is_an_error_naming_it) {
    std::string error;
    auto w = FileWatch::start("/nonexistent/trainer/0.log", [] {}, error);
    BOOST_TEST(!w);
    BOOST_TEST(error.find("/nonexistent/trainer/0.log") != std::string::npos, error);
    BOOST_TEST(error.find("No such file") != std::string::npos, error);
}
