#include "core/executor/atomic_writer.hpp"

#include "core/server/atomic_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

namespace trainer::core::executor {

namespace fs = std::filesystem;

namespace {

constexpr const char* kDataDirName = "..data";
constexpr const char* kNewDataDirName = "..data_tmp";

std::string systemError(std::string_view what, const fs::path& p, int err) {
    return std::string(what) + " " + p.string() + ": " + std::strerror(err);
}

// The paths with "." and empty segments removed (as Go's filepath.Clean for valid paths).
std::string cleanPath(std::string_view p) {
    std::string out;
    std::istringstream in{std::string(p)};
    for (std::string seg; std::getline(in, seg, '/');)
        if (!seg.empty() && seg != ".") out += (out.empty() ? "" : "/") + seg;
    return out;
}

std::string topLevel(const std::string& p) { return p.substr(0, p.find('/')); }

bool readFile(const fs::path& p, std::string& out) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return false;
    std::ostringstream s;
    s << in.rdbuf();
    out = s.str();
    return true;
}

// The regular files under `dir` with their modes, or false when it cannot be read.
bool readTree(const fs::path& dir, Payload& out) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        struct stat st {};
        FileProjection f;
        if (::lstat(it->path().c_str(), &st) != 0 || !readFile(it->path(), f.data)) return false;
        f.mode = st.st_mode & 07777;
        out[fs::relative(it->path(), dir, ec).generic_string()] = std::move(f);
    }
    return !ec;
}

std::string newTimestampedDir(const fs::path& targetDir, fs::path& out) {
    std::time_t now = std::time(nullptr);
    std::tm tm {};
    gmtime_r(&now, &tm);
    char stamp[64];
    std::strftime(stamp, sizeof stamp, "..%Y_%m_%d_%H_%M_%S.", &tm);
    std::string tmpl = (targetDir / (std::string(stamp) + "XXXXXX")).string();
    if (!::mkdtemp(tmpl.data())) return systemError("cannot create directory in", targetDir, errno);
    out = tmpl;
    if (::chmod(out.c_str(), 0755) != 0) return systemError("cannot chmod", out, errno);
    return "";
}

std::string writeFiles(const fs::path& dir, const Payload& payload) {
    for (auto const& [rel, file] : payload) {
        fs::path p = dir / rel;
        std::error_code ec;
        fs::create_directories(p.parent_path(), ec);
        if (ec) return "cannot create directory " + p.parent_path().string() + ": " + ec.message();
        // Created owner-only and given its mode before any byte: a secret is never readable early.
        if (auto r = server::writeNewFile(p, file.data, static_cast<mode_t>(file.mode)); !r.ok()) return r.error;
    }
    return "";
}

// Points ..data at `tsName` with one rename of a fresh symlink over it.
std::string switchDataLink(const fs::path& targetDir, const std::string& tsName) {
    fs::path tmp = targetDir / kNewDataDirName;
    std::error_code ec;
    fs::remove(tmp, ec);
    if (::symlink(tsName.c_str(), tmp.c_str()) != 0) return systemError("cannot create symlink", tmp, errno);
    if (::rename(tmp.c_str(), (targetDir / kDataDirName).c_str()) != 0)
        return systemError("cannot rename", tmp, errno);
    return "";
}

// Creates `<name> -> ..data/<name>` for the payload's top-level names and removes such links
// for names no longer in it.
std::string syncVisibleLinks(const fs::path& targetDir, const std::set<std::string>& names) {
    for (auto const& name : names) {
        fs::path p = targetDir / name;
        struct stat st {};
        if (::lstat(p.c_str(), &st) == 0) continue;
        std::string to = std::string(kDataDirName) + "/" + name;
        if (::symlink(to.c_str(), p.c_str()) != 0) return systemError("cannot create symlink", p, errno);
    }
    std::error_code ec;
    for (fs::directory_iterator it(targetDir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (name.starts_with("..") || names.count(name) || !it->is_symlink(ec)) continue;
        std::error_code rec;
        if (fs::read_symlink(it->path(), rec).string().starts_with(std::string(kDataDirName) + "/"))
            fs::remove(it->path(), rec);
    }
    return ec ? "cannot list " + targetDir.string() + ": " + ec.message() : "";
}

}  // namespace

std::string validatePayloadPath(std::string_view path) {
    if (path.empty()) return "invalid path: must not be empty: \"\"";
    std::string p(path);
    if (p.front() == '/') return "invalid path: must be relative path: " + p;
    if (p.size() > 4096) return "invalid path: must be less than or equal to 4096 characters";
    std::istringstream in(p);
    for (std::string seg; std::getline(in, seg, '/');) {
        if (seg == "..") return "invalid path: must not contain '..': " + p;
        if (seg.size() > 255) return "invalid path: filenames must be less than or equal to 255 characters";
    }
    if (p.starts_with("..")) return "invalid path: must not start with '..': " + p;
    if (cleanPath(p).empty()) return "invalid path: must not be '.'";
    return "";
}

std::string writeAtomically(const fs::path& targetDir, const Payload& payload) {
    Payload clean;
    std::set<std::string> names;
    for (auto const& [p, f] : payload) {
        if (auto error = validatePayloadPath(p); !error.empty()) return error;
        clean[cleanPath(p)] = f;
        names.insert(topLevel(cleanPath(p)));
    }
    std::error_code ec;
    fs::create_directories(targetDir, ec);
    if (ec) return "cannot create directory " + targetDir.string() + ": " + ec.message();
    fs::path oldDir = fs::read_symlink(targetDir / kDataDirName, ec);
    Payload current;
    if (!ec && readTree(targetDir / oldDir, current) && current == clean) return syncVisibleLinks(targetDir, names);
    fs::path tsDir;
    std::string error = newTimestampedDir(targetDir, tsDir);
    if (error.empty()) error = writeFiles(tsDir, clean);
    if (error.empty()) error = switchDataLink(targetDir, tsDir.filename().string());
    if (!error.empty()) {
        if (!tsDir.empty()) fs::remove_all(tsDir, ec);
        return error;
    }
    error = syncVisibleLinks(targetDir, names);
    std::string old = oldDir.string();
    if (old.starts_with("..") && old.find('/') == std::string::npos && old != tsDir.filename().string())
        fs::remove_all(targetDir / old, ec);
    return error;
}

}  // namespace trainer::core::executor
