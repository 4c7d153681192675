// A call when a file is written: what a follower of a container log waits on (`kubectl logs -f`
// through the API server, `trainer-operator logs -f`), so a line reaches it when the container
// writes it rather than at the follower's next poll. One inotify descriptor and one thread serve
// the whole process (inotify(7): IN_MODIFY, and IN_CLOSE_WRITE for the last bytes of a writer).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace trainer::core::executor {

class FileWatch {
public:
    // Calls `onWrite` on the watching thread after every write to `path` until the handle is
    // destroyed (no call runs after the destructor returned); it must not block. Null, with
    // `error` saying why, when the file cannot be watched (it does not exist yet, no inotify):
    // the caller polls as it would without one.
    static std::unique_ptr<FileWatch> start(const std::filesystem::path& path, std::function<void()> onWrite,
                                            std::string& error);
    ~FileWatch();
    FileWatch(const FileWatch&) = delete;
    FileWatch& operator=(const FileWatch&) = delete;

private:
    FileWatch(int wd, std::uint64_t id) : wd_(wd), id_(id) {}
    int wd_;
    std::uint64_t id_;
};

}  // namespace trainer::core::executor
