// Writing a volume's files so that a reader never sees a half-updated set: the scheme of
// k8s.io/kubernetes pkg/volume/util/atomic_writer.go, which configMap, secret, downwardAPI and
// projected volumes use.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace trainer::core::executor {

// One file of a volume: its bytes and permission bits.
struct FileProjection {
    std::string data;
    unsigned mode = 0644;
    bool operator==(const FileProjection&) const = default;
};

// Relative path inside the volume -> file.
using Payload = std::map<std::string, FileProjection>;

// "" when `path` may name a payload file; else the kubelet's message ("invalid path: must be
// relative path: /a", "invalid path: must not contain '..': a/../b", "invalid path: must not
// start with '..': ..a").
std::string validatePayloadPath(std::string_view path);

// Makes `targetDir` hold exactly `payload`: the files are written into a fresh hidden directory
// `..<timestamp>.<random>`, the symlink `..data` is switched to it with one rename(2), and each
// top-level name is a symlink `<name> -> ..data/<name>`; the previous directory and names no
// longer in the payload are then removed. Nothing is written when the current content (bytes
// and modes) already equals `payload`. Returns "" on success, else the error.
std::string writeAtomically(const std::filesystem::path& targetDir, const Payload& payload);

}  // namespace trainer::core::executor
