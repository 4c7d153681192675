// Internals of the plugin loader, one concept per file: file trust and the single open
// (registry_trust.cpp), hashing (registry_hash.cpp), ELF checks (registry_elf.cpp), the host
// API table (registry_host_api.cpp), descriptor reading (registry_descriptor.cpp). Loading
// and rejection are in registry.cpp, hook invocation in registry_invoke.cpp.
#pragma once

#include "core/plugin/registry.hpp"

#include <sys/stat.h>

#include <optional>
#include <string>
#include <string_view>

namespace trainer::core::detail {

// Why a file is refused: the end of "plugin P was rejected: <why>." and its metrics code.
struct Refusal {
    std::string why;
    std::string code;
};

// sha256 (lowercase hex) of every byte of the open file `fd`, read with pread from offset 0;
// "" when it cannot be read.
std::string sha256Fd(int fd);

// Is `s` a sha256 as sha256Fd writes it: 64 lowercase hex digits?
bool isSha256Hex(std::string_view s);

// sha256 of the file at `path` (opened O_NOFOLLOW), for deciding an order or a mode before the
// file is loaded, which hashes what it loads itself; "" when it cannot be opened or read.
std::string sha256Path(const std::string& path);

// "" when `fd` holds an ELF shared object, else why not (a sentence fragment).
std::string elfProblem(int fd);

// Refusal when `dir` is not a directory one can trust (StrictModes): writable by group or
// others, or owned by anyone but root or the effective user.
std::optional<Refusal> untrustedDirectory(const std::string& dir);

// A plugin file opened once (O_RDONLY|O_NOFOLLOW|O_CLOEXEC|O_NONBLOCK) and checked on its
// descriptor. Owns the descriptor until release().
class TrustedFile {
public:
    TrustedFile() = default;
    TrustedFile(TrustedFile&& o) noexcept : fd_(o.release()), status_(o.status_) {}
    TrustedFile& operator=(TrustedFile&&) = delete;
    ~TrustedFile();
    int fd() const { return fd_; }
    // The descriptor's fstat, taken by open() (zeroed for an adopted descriptor).
    const struct stat& status() const { return status_; }
    int release() {
        int f = fd_;
        fd_ = -1;
        return f;
    }
    // "/proc/self/fd/<n>": dlopen through it loads exactly the open file.
    std::string procPath() const { return "/proc/self/fd/" + std::to_string(fd_); }

    // Opens `path` (a symlink only when its target stays in the file's directory) and checks
    // the open file: a regular file, owned by root or the effective user, writable by no one
    // else. A Refusal when any check fails.
    static std::optional<Refusal> open(const std::string& path, TrustedFile& out);
    // Owns a descriptor opened and checked elsewhere (the plugin-host child's inherited file).
    static TrustedFile adopt(int fd) { return TrustedFile(fd); }

private:
    explicit TrustedFile(int fd) : fd_(fd) {}
    int fd_ = -1;
    struct stat status_ {};
};

// Reads a descriptor into `p` (claims, hooks, watches; rule 4): a Refusal when it is malformed.
std::optional<Refusal> readDescriptor(const trn_plugin_descriptor* d, LoadedPlugin& p);
// Refusal when `p` implements EnforceMLPolicy or EnforcePodGroupPolicy without claiming a policy
// of that group ("mlPolicy", "mlPolicy.<x>"; "podGroupPolicy", "podGroupPolicy.<x>").
std::optional<Refusal> policyHookProblem(const LoadedPlugin& p);

// Refusal when `pins` holds `key` and its hash is not `actual`.
std::optional<Refusal> pinMismatch(const std::map<std::string, std::string>& pins, const std::string& key,
                                   const std::string& actual);

std::string abiString(uint32_t v);

// The load sequence's steps shared by the operator and the plugin-host child (registry.cpp).
using EntryFn = const trn_plugin_descriptor*(const trn_host_info*);
// dlopen through the file's descriptor (kept open and mapped for the process's life, rule 8).
std::optional<Refusal> loadLibrary(TrustedFile& file, const std::string& path, EntryFn*& entry);
std::optional<Refusal> callEntry(EntryFn* entry, const trn_host_info& host, const trn_plugin_descriptor*& d);
// Size, ABI range and name of a descriptor.
std::optional<Refusal> headerProblem(const trn_plugin_descriptor* d, const trn_host_info& host);
// What the host tells every plugin (its API table: PluginRegistry::hostApi()).
const trn_host_info& hostInfo();
// A LoadedPlugin of a checked descriptor (priority overrides from `options` applied); `path` is
// what listings and messages show (a file's absolute path).
std::unique_ptr<LoadedPlugin> makePlugin(const trn_plugin_descriptor* d, const std::string& path,
                                         const std::string& sha256, const PluginOptions& options);

}  // namespace trainer::core::detail
