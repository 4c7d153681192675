// The coscheduling pod-group backend (upstream
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/coscheduling/coscheduling.go):
// labels every pod with scheduling.x-k8s.io/pod-group=<job> and builds the scheduler-plugins PodGroup.
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/pod_group.hpp>

#include <cstdint>
#include <optional>

namespace trainer::plugins::coscheduling {

namespace json = boost::json;

inline constexpr const char* kPodGroupApiVersion = "scheduling.x-k8s.io/v1alpha1";
inline constexpr const char* kPodGroupLabel = "scheduling.x-k8s.io/pod-group";
inline constexpr int64_t kDefaultScheduleTimeoutSeconds = 60;

// The PodGroup for `info`, or nullopt when nothing must be emitted (errors reported on ctx).
std::optional<json::object> buildPodGroup(const sdk::Info& info, sdk::Context& ctx);

// Reports a negative scheduleTimeoutSeconds (neither CRD forbids it; upstream would emit it).
// Returns false when it reported an error.
bool checkTimeout(const sdk::Info& info, sdk::Context& ctx);

class Coscheduling : public sdk::Plugin,
                     public sdk::CustomValidation,
                     public sdk::EnforcePodGroupPolicy,
                     public sdk::ComponentBuilder {
public:
    // Takes no configuration; unknown keys are reported as warnings.
    Coscheduling(const json::object& config, sdk::Context& ctx);
    static sdk::PluginMeta meta();

    void validate(const sdk::Info& info, sdk::Context& ctx) override;
    void enforcePodGroupPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context& ctx) override;
    void build(const sdk::Info& info, sdk::Objects& objects, sdk::Context& ctx) override;
};

}  // namespace trainer::plugins::coscheduling
