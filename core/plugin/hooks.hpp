// The extension points (one per ABI table of trn_plugin_descriptor, sdk/include/trainer/abi.h)
// and the table of a loaded plugin's hook functions, looked up on every hook call.
#pragma once

#include <trainer/abi.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace trainer::core {

// The extension points, in pipeline order, in one table.
enum class Hook { CustomValidation, WatchExtension, EnforceMLPolicy, EnforcePodGroupPolicy, EnforcePodSpec,
                  PreComponentBuilder, ComponentBuilder, TrainJobStatus };
struct HookInfo {
    Hook hook;
    const char* name;
};
inline constexpr std::array<HookInfo, 8> kHooks{{
    {Hook::CustomValidation, "CustomValidation"},
    {Hook::WatchExtension, "WatchExtension"},
    {Hook::EnforceMLPolicy, "EnforceMLPolicy"},
    {Hook::EnforcePodGroupPolicy, "EnforcePodGroupPolicy"},
    {Hook::EnforcePodSpec, "EnforcePodSpec"},
    {Hook::PreComponentBuilder, "PreComponentBuilder"},
    {Hook::ComponentBuilder, "ComponentBuilder"},
    {Hook::TrainJobStatus, "TrainJobStatus"},
}};
const char* hookName(Hook h);

// The hooks one plugin implements: a slot per Hook, so a lookup is an index and a plugin's
// table allocates nothing. A hook can be present with a null function: a plugin whose code runs
// in a plugin-host child implements it there (core/plugin/isolation_client.hpp).
class HookTable {
public:
    bool has(Hook h) const { return (present_ >> index(h)) & 1u; }
    // The function of `h`; null when absent or implemented in a plugin-host child.
    trn_hook_fn get(Hook h) const { return fns_[index(h)]; }
    void set(Hook h, trn_hook_fn fn) {
        present_ |= 1u << index(h);
        fns_[index(h)] = fn;
    }
    // How many hooks are present.
    size_t size() const { return static_cast<size_t>(std::popcount(present_)); }

private:
    static size_t index(Hook h) { return static_cast<size_t>(h); }
    std::array<trn_hook_fn, kHooks.size()> fns_{};
    uint32_t present_ = 0;
};

}  // namespace trainer::core
