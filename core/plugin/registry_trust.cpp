// File trust, like sshd's StrictModes: a plugin directory or file writable by group or others,
// or owned by anyone but root or the operator's effective user, is refused (and so is the
// directory when one of its parents is, sticky directories like /tmp aside); so is a symlink
// whose target leaves the file's directory. A trusted file is opened once (O_NOFOLLOW), checked
// on its descriptor, and everything after (ELF check, hash, dlopen) goes through that descriptor.
#include "core/plugin/registry_internal.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace trainer::core::detail {

namespace fs = std::filesystem;

namespace {

std::string octalMode(mode_t m) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
    return buf;
}

std::optional<Refusal> writableProblem(const struct stat& st) {
    const bool g = st.st_mode & S_IWGRP, o = st.st_mode & S_IWOTH;
    if (!g && !o) return std::nullopt;
    std::string who = g && o ? "group and others" : g ? "group" : "others";
    return Refusal{"it is writable by " + who + " (mode " + octalMode(st.st_mode) + "); only its owner may write it",
                   "insecure_mode"};
}

std::optional<Refusal> ownerProblem(const struct stat& st) {
    static const uid_t me = ::geteuid();  // the operator never changes its effective user
    if (st.st_uid == 0 || st.st_uid == me) return std::nullopt;
    return Refusal{"it is owned by uid " + std::to_string(st.st_uid) + ", not by root or the operator's user (uid " +
                       std::to_string(me) + ")",
                   "insecure_owner"};
}

std::optional<Refusal> fileProblem(const struct stat& st) {
    if (!S_ISREG(st.st_mode)) return Refusal{"it is not a regular file", "not_a_file"};
    if (auto r = writableProblem(st)) return r;
    return ownerProblem(st);
}

std::string errnoText(const char* what) { return std::string(what) + " (" + std::strerror(errno) + ")"; }

// The path to open: `path` itself, or a symlink's target when it stays in the link's directory.
std::optional<Refusal> resolveLink(const std::string& path, std::string& target) {
    std::error_code ec;
    fs::path dir = fs::canonical(fs::absolute(path).parent_path(), ec);
    fs::path resolved = ec ? fs::path() : fs::canonical(path, ec);
    if (ec) return Refusal{"it is a symlink that cannot be resolved (" + ec.message() + ")", "bad_symlink"};
    auto rel = resolved.lexically_relative(dir);
    if (rel.empty() || *rel.begin() == "..")
        return Refusal{"it is a symlink to " + resolved.string() + ", outside the plugin directory " + dir.string(),
                       "symlink_outside"};
    target = resolved.string();
    return std::nullopt;
}

}  // namespace

TrustedFile::~TrustedFile() {
    if (fd_ >= 0) ::close(fd_);
}

// Every directory above the plugin directory, as sshd's StrictModes checks a home's parents:
// owned by root or the operator's user and writable by no one else, except a sticky directory
// such as /tmp (others may add entries there but not rename or remove ours).
std::optional<Refusal> untrustedAncestor(const fs::path& dir) {
    std::error_code ec;
    fs::path real = fs::canonical(dir, ec);
    if (ec) return std::nullopt;  // the directory's own check reports it
    for (fs::path p = real.parent_path(); !p.empty(); p = p.parent_path()) {
        struct stat st {};
        if (::stat(p.c_str(), &st) != 0) return Refusal{"its parent " + p.string() + " " + errnoText("cannot be examined"), "insecure_parent"};
        if (!(st.st_mode & S_ISVTX))
            if (auto r = writableProblem(st)) return Refusal{"its parent " + p.string() + " " + r->why.substr(3), "insecure_parent"};
        if (auto r = ownerProblem(st)) return Refusal{"its parent " + p.string() + " " + r->why.substr(3), "insecure_parent"};
        if (p == p.root_path()) break;
    }
    return std::nullopt;
}

std::optional<Refusal> untrustedDirectory(const std::string& dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) return Refusal{errnoText("it cannot be examined"), "no_directory"};
    if (auto r = writableProblem(st)) return r;
    if (auto r = ownerProblem(st)) return r;
    return untrustedAncestor(dir);
}

// One open and one fstat per file (start-up runs this for every plugin, issue 14's P3): the
// checks are made on the descriptor, so nothing can swap the file between check and use. The
// open follows no final symlink (O_NOFOLLOW fails it with ELOOP, and then a link whose target
// stays in its directory is opened by that target) and does not wait on a FIFO (O_NONBLOCK).
std::optional<Refusal> TrustedFile::open(const std::string& path, TrustedFile& out) {
    constexpr int kFlags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
    TrustedFile f(::open(path.c_str(), kFlags));
    if (f.fd_ < 0 && errno == ELOOP) {
        std::string target;
        if (auto r = resolveLink(path, target)) return r;
        f.fd_ = ::open(target.c_str(), kFlags);
    }
    if (f.fd_ < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return Refusal{errnoText("it cannot be examined"), "not_a_file"};
        if (errno == ENXIO) return Refusal{"it is not a regular file", "not_a_file"};  // a socket
        return Refusal{errnoText("it cannot be opened"), "open_failed"};
    }
    if (::fstat(f.fd_, &f.status_) != 0) return Refusal{errnoText("it cannot be examined"), "open_failed"};
    if (auto r = fileProblem(f.status_)) return r;
    out.fd_ = f.release();
    out.status_ = f.status_;
    return std::nullopt;
}

}  // namespace trainer::core::detail
