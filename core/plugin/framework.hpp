// The pipeline over loaded plugins (README.md "The pipeline"; upstream's Run*Plugins in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/core/framework.go):
// admission through CustomValidation, the build phases EnforceMLPolicy → EnforcePodGroupPolicy →
// EnforcePodSpec → PreComponentBuilder → ComponentBuilder, and TrainJobStatus. Plugins run in
// registry order (priority, then name); within a phase every plugin sees Info as it was when the
// phase began, and its edits are applied when it returns.
#pragma once

#include "core/api/errors.hpp"
#include "core/api/object_set.hpp"
#include "core/plugin/call.hpp"
#include "core/plugin/edits.hpp"
#include "core/plugin/info_skeleton.hpp"
#include "core/plugin/info_text.hpp"
#include "core/plugin/operator_settings.hpp"
#include "core/plugin/registry.hpp"

#include <boost/json.hpp>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace trainer::core {

// The build phases, in pipeline order.
inline constexpr std::array<Hook, 5> kBuildPhases{Hook::EnforceMLPolicy, Hook::EnforcePodGroupPolicy,
                                                 Hook::EnforcePodSpec, Hook::PreComponentBuilder,
                                                 Hook::ComponentBuilder};

struct BuildResult {
    std::vector<json::object> objects;  // in plugin order
    json::object info;                  // the Info after every phase
    Diagnostics diagnostics;
};

class Framework {
public:
    explicit Framework(const PluginRegistry& registry, HookObserver observer = {}, OperatorSettings settings = {});

    // The operator's identity and feature gates, added to every Info as its `operator` member.
    // Set before the first hook runs (not synchronised with concurrent reconciles).
    void setOperatorSettings(OperatorSettings settings);
    const OperatorSettings& operatorSettings() const { return settings_; }
    // `info` with its `operator` member set from the settings (replacing any it had): what
    // every hook of this Framework receives.
    json::object withOperator(json::object info) const;

    // Policy claims of the runtime (rule 12): every configured mlPolicy / podGroupPolicy
    // member must be claimed by a loaded plugin whose feature gates are on, and at most one of
    // each kind configured.
    // `info` is an Info document; errors name the runtime, the members and the plugins.
    Diagnostics checkPolicies(const json::object& info) const;

    // Admission, on an Info that has "admission": for every active plugin in registry order, its
    // CustomValidation, then the host's refusal of the env names it claims (reserved_env.hpp).
    Diagnostics validate(const json::object& info, const ClusterReader& cluster) const;
    // validate() of assembleInfo(skeleton, trainJob) with `admission` added, without making that
    // Info: policies are read from the skeleton, and the validators' text is the skeleton's with
    // the TrainJob's spliced in (admission, pipeline.cpp).
    Diagnostics validate(const InfoSkeleton& skeleton, const json::object& trainJob, const json::object& admission,
                         const ClusterReader& cluster) const;

    // The Info skeletons of the runtimes this Framework's admissions read (info_skeleton.hpp).
    InfoSkeletons& skeletons() const { return skeletons_; }

    // One reconcile's build: the edit phases, then the objects to apply. `phases` runs a part of
    // it (one hook, for a plugin's unit test through the SDK's testing library), always in
    // pipeline order; a hook that is not a build phase is an error. The Info edits are checked
    // by one ledger across the phases run; the first refused edit or failed hook stops the build,
    // and any error leaves `objects` empty (nothing is applied).
    BuildResult build(json::object info, const ClusterReader& cluster,
                      std::span<const Hook> phases = kBuildPhases) const;

    // TrainJobStatus: the new status of `trainJob`, nullopt for no change. A plugin whose
    // feature gates are off is skipped.
    std::optional<json::object> status(const json::object& trainJob, const ClusterReader& cluster,
                                       Diagnostics& diag) const;

    // Is `plugin` active for this Info: every `featureGate:<Name>` it claims is on in the
    // Info's `operator.featureGates` (the settings' gates when the Info has no `operator`
    // member; a gate the operator does not know is off), and its policy is configured or it
    // claims none?
    bool active(const LoadedPlugin& plugin, const json::object& info) const;

private:
    struct ClaimTables;
    struct Pass;
    bool runEditPhase(Hook hook, Pass& pass, Diagnostics& diag) const;
    void collect(const LoadedPlugin& p, Hook hook, const CallResult& r, Diagnostics& diag) const;
    // What a build's plugins, edits and objects are checked against, from the plugins' claims
    // and the gates `info` opens: whose gates are closed, env:/volume: claims for the edit
    // ledger, kind: claims for the objects.
    struct ClaimTables {
        std::vector<const LoadedPlugin*> gatesClosed;  // usually none
        std::shared_ptr<const EditClaims> edits;
        std::map<std::string, std::string> kinds;  // "apiVersion/Kind" -> owner
        size_t plugins = 0;                        // how many plugins the registry held
    };
    ClaimTables makeClaimTables(const json::object& info) const;
    // The tables for an Info whose gates are the settings' (a build's, a validation's): the ones
    // made with the settings, or `fresh`, made now, when the registry has loaded plugins since.
    const ClaimTables& tablesFor(const json::object& info, ClaimTables& fresh) const;
    // active() with the gates' verdict read from `claims`.
    bool activeUnder(const ClaimTables& claims, const LoadedPlugin& plugin, const json::object& info) const;
    // One build's state across its phases: the Info the phases edit, the ledger that checks the
    // edits, and the Info's text, re-serialised only where edits changed it.
    struct Pass {
        json::object& info;
        const ClusterReader& cluster;
        const ClaimTables& claims;
        EditLedger ledger;
        InfoText text;
    };
    // ComponentBuilder of every active plugin; objects checked (kind claims, reserved names, twice).
    void runBuilders(Pass& pass, BuildResult& out) const;

    bool gatesOpen(const LoadedPlugin& plugin, const json::object& info) const;

    // json::serialize(withOperator(info)) for an Info without an `operator` member, without
    // copying the Info to add it (what validate() hands every CustomValidation), with its places.
    HookInput validationInput(const json::object& info) const;
    // The same text for validate(skeleton, ...): json::serialize(withOperator(info)) where info is
    // assembleInfo(skeleton, trainJob) with `admission` added.
    HookInput splicedInput(const InfoSkeleton& skeleton, const json::object& trainJob,
                           const json::object& admission) const;
    // Appends `,"operator":<operatorText_>}` to `in`, its place with the others'.
    void appendOperator(HookInput& in) const;
    // validate()'s loop: policies and activity read from `info`, the env refusal from `trainJob`,
    // `text()` made once, when the first validator needs it.
    template <class Text>
    Diagnostics validateWith(const json::object& info, const json::object& trainJob, const ClusterReader& cluster,
                             Text&& text) const;

    const PluginRegistry& registry_;
    HookObserver observer_;
    OperatorSettings settings_;
    json::object operatorMember_;  // operatorInfoMember(settings_), made when the settings are set
    std::string operatorText_;     // json::serialize(operatorMember_), made with it
    // Made with them too: a build's Info carries operatorMember_, so its gates are the settings'.
    // Every build shares these unless the registry has loaded plugins since.
    ClaimTables claimTables_;
    mutable InfoSkeletons skeletons_;
};

}  // namespace trainer::core
