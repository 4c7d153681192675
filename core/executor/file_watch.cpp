#include "core/executor/file_watch.hpp"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace trainer::core::executor {

namespace {

// The process's inotify descriptor, its watches' callbacks and the thread that reads its events.
// Never destroyed: followers may end after static destruction began.
class Watcher {
public:
    static Watcher* instance(std::string& error) {
        static Watcher* w = [] {
            auto* made = new Watcher;
            if (made->fd_ < 0) return made;  // started() is false; every start() says why
            std::thread([made] { made->run(); }).detach();
            return made;
        }();
        if (w->fd_ < 0) error = "inotify_init1: " + w->initError_;
        return w->fd_ < 0 ? nullptr : w;
    }

    // The watch descriptor and the callback's id, or -1 with `error`.
    int add(const std::filesystem::path& path, std::function<void()> fn, std::uint64_t& id, std::string& error) {
        std::lock_guard g(mu_);
        int wd = ::inotify_add_watch(fd_, path.c_str(), IN_MODIFY | IN_CLOSE_WRITE);
        if (wd < 0) {
            error = "inotify_add_watch " + path.string() + ": " + std::strerror(errno);
            return -1;
        }
        id = ++lastId_;
        watches_[wd][id] = std::move(fn);
        return wd;
    }

    // After this returns, the callback never runs again.
    void remove(int wd, std::uint64_t id) {
        {
            std::lock_guard g(mu_);
            auto it = watches_.find(wd);
            if (it != watches_.end()) {
                it->second.erase(id);
                if (it->second.empty()) {
                    ::inotify_rm_watch(fd_, wd);  // one watch per inode: the last follower ends it
                    watches_.erase(it);
                }
            }
        }
        std::lock_guard running(calling_);  // a call that copied it before the erase has returned
    }

private:
    Watcher() : fd_(::inotify_init1(IN_CLOEXEC)) {
        if (fd_ < 0) initError_ = std::strerror(errno);
    }

    void run() {
        alignas(inotify_event) char buf[16 * (sizeof(inotify_event) + 256)];
        for (;;) {
            ssize_t n = ::read(fd_, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;  // cannot happen on a live inotify descriptor
            std::vector<int> written;
            for (ssize_t at = 0; at < n;) {
                auto* e = reinterpret_cast<const inotify_event*>(buf + at);
                if (e->mask & (IN_MODIFY | IN_CLOSE_WRITE)) written.push_back(e->wd);
                if (e->mask & IN_IGNORED) forget(e->wd);  // the file is gone: nothing more comes
                at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
            }
            // A burst of writes is one batch of events: each watch is called once for it.
            std::sort(written.begin(), written.end());
            written.erase(std::unique(written.begin(), written.end()), written.end());
            std::lock_guard running(calling_);
            for (auto const& fn : callbacks(written)) fn();
        }
    }

    std::vector<std::function<void()>> callbacks(const std::vector<int>& wds) {
        std::lock_guard g(mu_);
        std::vector<std::function<void()>> out;
        for (int wd : wds)
            if (auto it = watches_.find(wd); it != watches_.end())
                for (auto const& [id, fn] : it->second) out.push_back(fn);
        return out;
    }

    void forget(int wd) {
        std::lock_guard g(mu_);
        watches_.erase(wd);
    }

    int fd_;
    std::string initError_;
    std::mutex mu_;       // watches_ and lastId_
    std::mutex calling_;  // held while callbacks run
    std::map<int, std::map<std::uint64_t, std::function<void()>>> watches_;
    std::uint64_t lastId_ = 0;
};

}  // namespace

std::unique_ptr<FileWatch> FileWatch::start(const std::filesystem::path& path, std::function<void()> onWrite,
                                            std::string& error) {
    Watcher* w = Watcher::instance(error);
    if (!w) return nullptr;
    std::uint64_t id = 0;
    int wd = w->add(path, std::move(onWrite), id, error);
    if (wd < 0) return nullptr;
    return std::unique_ptr<FileWatch>(new FileWatch(wd, id));
}

FileWatch::~FileWatch() {
    std::string ignored;
    if (Watcher* w = Watcher::instance(ignored)) w->remove(wd_, id_);
}

}  // namespace trainer::core::executor
