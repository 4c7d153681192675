// Which binary the local executor runs as a container's init (container_init.hpp): the small
// `trainer-container-init` installed beside the operator's binary
// (<prefix>/libexec/trainer-operator/, core/CMakeLists.txt), else the operator's own binary
// through its hidden `__container-init` entry (core/cli/main.cpp). Both run the same code; the
// helper starts in a fraction of the CPU time (it links only what the init calls).
//
// The init runs as root inside every container, so the helper is used only when it and its
// directory are trusted as plugin files are (core/plugin/registry_trust.cpp): a regular,
// executable file owned by root or the operator's user, neither writable by group or others.
// Anything else falls back to the operator's binary, and the choice says why.
#pragma once

#include <string>
#include <string_view>

namespace trainer::core::executor {

// The helper's path relative to the directory holding the operator's binary.
inline constexpr std::string_view kContainerInitHelper = "../libexec/trainer-operator/trainer-container-init";

struct ContainerInitChoice {
    std::string path;        // the binary to exec
    std::string notUsed;     // why the helper is not `path` ("" when it is)
    bool helperPresent = false;  // a file is at the helper's path (it was refused when notUsed is set)
};

// Chooses for the operator binary at `operatorBinary` (an absolute path).
ContainerInitChoice chooseContainerInit(const std::string& operatorBinary);

}  // namespace trainer::core::executor
