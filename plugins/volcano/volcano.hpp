// The Volcano pod-group backend (upstream
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/volcano/volcano.go):
// annotates every pod with scheduling.k8s.io/group-name=<job>, builds a scheduling.volcano.sh/v1beta1
// PodGroup and validates the queue name and PriorityClass at admission. Built against the installed
// SDK only.
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/pod_group.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trainer::plugins::volcano {

namespace json = boost::json;

inline constexpr const char* kPodGroupApiVersion = "scheduling.volcano.sh/v1beta1";
inline constexpr const char* kGroupNameAnnotation = "scheduling.k8s.io/group-name";
inline constexpr const char* kQueueNameAnnotation = "scheduling.volcano.sh/queue-name";
inline constexpr int64_t kDefaultHighestTierAllowed = 1;

// priorityClassName of every replicated job's pod template that sets one, in template order.
std::vector<std::string> priorityClassNames(const sdk::Info& info);

// The PodGroup for `info`, or nullopt when nothing must be emitted (errors reported on ctx).
std::optional<json::object> buildPodGroup(const sdk::Info& info, sdk::Context& ctx);

// Admission checks: a non-empty queue name and existing PriorityClasses.
void validateAdmission(const sdk::Info& info, sdk::Context& ctx);

class Volcano : public sdk::Plugin,
                public sdk::CustomValidation,
                public sdk::EnforcePodGroupPolicy,
                public sdk::ComponentBuilder {
public:
    // Takes no configuration; unknown keys are reported as warnings.
    Volcano(const json::object& config, sdk::Context& ctx);
    static sdk::PluginMeta meta();

    void validate(const sdk::Info& info, sdk::Context& ctx) override;
    void enforcePodGroupPolicy(const sdk::Info& info, sdk::Edits& edits, sdk::Context& ctx) override;
    void build(const sdk::Info& info, sdk::Objects& objects, sdk::Context& ctx) override;
};

}  // namespace trainer::plugins::volcano
