// @NAME@: a pod-group policy. A runtime with `podGroupPolicy.@NAME@` gang-schedules the
// TrainJob's pods: every pod gets
//
//   label      @NAME@.example.com/pod-group: <TrainJob name>
//   annotation @NAME@.example.com/min-member: Σ PodSet.count (the whole gang)
//   annotation @NAME@.example.com/schedule-timeout-seconds: `podGroupPolicy.@NAME@.scheduleTimeoutSeconds`
//
// for a scheduler that reads them. A backend with a PodGroup object of its own would also build
// it (ComponentBuilder, claiming `kind:<apiVersion>/<Kind>`; see the shipped coscheduling plugin
// and <trainer/pod_group.hpp>: podGroupObject, keepExistingPodGroup, podGroupWatches).
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/pod_group.hpp>
#include <trainer/policy.hpp>

#include <cstdint>

namespace @IDENT@_plugin {

using namespace trainer::sdk;

inline constexpr const char* kPodGroupLabel = "@NAME@.example.com/pod-group";
inline constexpr const char* kMinMemberAnnotation = "@NAME@.example.com/min-member";
inline constexpr const char* kTimeoutAnnotation = "@NAME@.example.com/schedule-timeout-seconds";
inline constexpr int64_t kDefaultTimeoutSeconds = 60;

class @CLASS@Plugin : public Plugin, public CustomValidation, public EnforcePodGroupPolicy {
public:
    // The operator's configuration of the plugin: {"scheduleTimeoutSeconds": N} (optional), the
    // default for runtimes that set none.
    @CLASS@Plugin(const json::object& config, Context& ctx);
    static PluginMeta meta();

    // Refuses a runtime whose `podGroupPolicy.@NAME@.scheduleTimeoutSeconds` is negative.
    void validate(const Info& info, Context& ctx) override;
    // Labels and annotates every pod with the gang.
    void enforcePodGroupPolicy(const Info& info, Edits& edits, Context& ctx) override;

    // The timeout in force: the runtime's, else the configured one.
    int64_t timeoutSeconds(const Info& info) const;

private:
    int64_t timeout_ = kDefaultTimeoutSeconds;
};

}  // namespace @IDENT@_plugin
