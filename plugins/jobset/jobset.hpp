// The JobSet plugin (upstream
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/jobset/jobset.go
// and builder.go beside it): admission checks, pod endpoints and parallelism, the JobSet object, and
// TrainJob status from the JobSet.
#pragma once

#include <trainer/plugin.hpp>
#include <trainer/pod_dns.hpp>
#include <trainer/policy.hpp>

#include <optional>
#include <string_view>

namespace trainer::plugins::jobset {

namespace json = boost::json;

inline constexpr std::string_view kApiVersion = "jobset.x-k8s.io/v1alpha2";
inline constexpr std::string_view kKind = "JobSet";

// Owns kind JobSet; implements CustomValidation, PreComponentBuilder, ComponentBuilder,
// TrainJobStatus and watches owned JobSets.
class JobSet : public sdk::Plugin,
               public sdk::CustomValidation,
               public sdk::PreComponentBuilder,
               public sdk::ComponentBuilder,
               public sdk::TrainJobStatus {
public:
    JobSet(const json::object& config, sdk::Context& ctx);
    static sdk::PluginMeta meta();

    // Initializer, runtimePatches and update rules (jobset.go Validate).
    void validate(const sdk::Info& info, sdk::Context& ctx) override;
    // Endpoints into /podSets/<n>/endpoints; parallelism = completions = count.
    void preBuild(const sdk::Info& info, sdk::Edits& edits, sdk::Context& ctx) override;
    // The JobSet, or nothing when an unsuspended JobSet exists for an unsuspended TrainJob.
    void build(const sdk::Info& info, sdk::Objects& objects, sdk::Context& ctx) override;
    // The TrainJob's new status from its JobSet; nullopt for "no change".
    std::optional<json::object> status(const json::object& trainJob, sdk::Context& ctx) override;
};

// The JobSet object for `info` (what jobset.go Build makes with builder.go), without the skip rule.
// nullopt after ctx.error when Info and the template disagree.
std::optional<json::object> buildJobSet(const sdk::Info& info, sdk::Context& ctx);

}  // namespace trainer::plugins::jobset
