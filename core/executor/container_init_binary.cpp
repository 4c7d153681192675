#include "core/executor/container_init_binary.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace trainer::core::executor {

namespace {

// Why `st` may not be trusted to run as root in a container ("" when it may).
std::string untrusted(const struct stat& st, bool directory) {
    if (directory ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) return directory ? "not a directory" : "not a regular file";
    if (st.st_mode & (S_IWGRP | S_IWOTH)) return "writable by group or others";
    static const uid_t me = ::geteuid();
    if (st.st_uid != 0 && st.st_uid != me)
        return "owned by uid " + std::to_string(st.st_uid) + ", not by root or the operator's user";
    if (!directory && !(st.st_mode & S_IXUSR)) return "not executable";
    return "";
}

}  // namespace

ContainerInitChoice chooseContainerInit(const std::string& operatorBinary) {
    ContainerInitChoice out{operatorBinary, "", false};
    const std::filesystem::path helper =
        (std::filesystem::path(operatorBinary).parent_path() / kContainerInitHelper).lexically_normal();
    struct stat file {}, dir {};
    if (::stat(helper.c_str(), &file) != 0) {
        out.notUsed = helper.string() + ": " + std::strerror(errno);
        return out;
    }
    out.helperPresent = true;
    if (::stat(helper.parent_path().c_str(), &dir) != 0) {
        out.notUsed = helper.parent_path().string() + ": " + std::strerror(errno);
        return out;
    }
    if (auto why = untrusted(dir, true); !why.empty()) {
        out.notUsed = helper.parent_path().string() + " is " + why;
        return out;
    }
    if (auto why = untrusted(file, false); !why.empty()) {
        out.notUsed = helper.string() + " is " + why;
        return out;
    }
    out.path = helper.string();
    return out;
}

}  // namespace trainer::core::executor
