// One invocation of a plugin function: the host side of trn_call, and invoke(), which runs a
// hook with the plugin's lock, catches anything that crosses the boundary and times it.
#pragma once

#include "core/api/object_set.hpp"
#include "core/plugin/member_place.hpp"
#include "core/plugin/registry.hpp"

#include <functional>
#include <list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// Defined at global scope: abi.h declares `struct trn_call` opaque.
struct trn_call {
    struct Diagnostic {
        int32_t severity;
        std::string path;
        std::string message;
    };
    const trainer::core::LoadedPlugin* plugin = nullptr;
    const trainer::core::PluginLogSink* logSink = nullptr;
    const trainer::core::ClusterReader* cluster = nullptr;
    // The hook's input and where its members lie (none: the host has no index of it); the
    // plugin's first input_members makes `members` from them, valid until the call ends.
    std::string_view input;
    std::span<const trainer::core::MemberPlace> places;
    std::vector<trn_member> members;
    std::vector<Diagnostic> diagnostics;
    std::vector<std::string> emitted;
    // Owns lookup results until the call ends; a list, as a deque allocates even when empty
    // and most calls look nothing up.
    std::list<std::string> lookups;
};

namespace trainer::core {

struct CallResult {
    trn_status status = TRN_OK;
    std::vector<trn_call::Diagnostic> diagnostics;
    std::vector<std::string> emitted;
    bool ok() const;
};

// Observes every hook call (metrics): plugin, hook, seconds, ok.
using HookObserver = std::function<void(const LoadedPlugin&, Hook, double, bool)>;

// Runs `hook` of `plugin` on `input`; never throws. `places` says where the input's members lie,
// for the plugin to ask (trn_host_api.input_members); a process-isolated plugin is not offered them.
CallResult invokeHook(const LoadedPlugin& plugin, Hook hook, std::string_view input, const ClusterReader* cluster,
                      const PluginLogSink* logSink, const HookObserver* observer = nullptr,
                      std::span<const MemberPlace> places = {});

}  // namespace trainer::core
