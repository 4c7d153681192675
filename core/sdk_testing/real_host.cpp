// RealHost of the SDK's testing library: the operator's PluginRegistry, Framework and pipeline
// (core/plugin/) around the plugins and cluster objects a test gives.
#include "core/api/admission.hpp"
#include "core/api/schema.hpp"
#include "core/controller/feature_gates.hpp"
#include "core/plugin/framework.hpp"
#include "core/plugin/pipeline.hpp"
#include "core/plugin/registry_internal.hpp"
#include "core/sdk_testing/outcome.hpp"
#include "core/sdk_testing/test_cluster.hpp"

#include <map>

namespace trainer::sdk::testing {

namespace {

// The host's hook for each of the SDK's.
constexpr std::pair<Hook, core::Hook> kHooks[] = {
    {Hook::CustomValidation, core::Hook::CustomValidation},
    {Hook::EnforceMLPolicy, core::Hook::EnforceMLPolicy},
    {Hook::EnforcePodGroupPolicy, core::Hook::EnforcePodGroupPolicy},
    {Hook::EnforcePodSpec, core::Hook::EnforcePodSpec},
    {Hook::PreComponentBuilder, core::Hook::PreComponentBuilder},
    {Hook::ComponentBuilder, core::Hook::ComponentBuilder},
    {Hook::TrainJobStatus, core::Hook::TrainJobStatus},
};
core::Hook hostHook(Hook h) {
    for (auto const& [sdkHook, coreHook] : kHooks)
        if (sdkHook == h) return coreHook;
    return core::Hook::WatchExtension;  // not reached: every Hook is in the table
}

json::object defaulted(json::object o) {
    core::applyDefaults(o);
    return o;
}

}  // namespace

struct RealHost::Impl {
    core::PluginRegistry registry;
    core::OperatorSettings settings{.featureGates = core::controller::defaultFeatureGates()};
    std::map<std::string, std::string> configs;
    core::sdk_testing::TestCluster cluster;
    std::vector<std::string> logs;  // since the last step began

    Impl() {
        registry.setLogSink([this](const std::string& plugin, int32_t, std::string_view line) {
            logs.push_back(plugin + ": " + std::string(line));
        });
    }
    core::PluginOptions options() const {
        core::PluginOptions o;
        o.configs = configs;
        return o;
    }
    core::Framework framework() const { return core::Framework(registry, {}, settings); }
    // A fresh Outcome for a step, the step's log lines collected into it at the end.
    Outcome begin() {
        logs.clear();
        return Outcome{};
    }
    Outcome finish(Outcome out, const core::Diagnostics& d) {
        core::sdk_testing::addDiagnostics(out, d);
        out.logs = std::move(logs);
        logs.clear();
        return out;
    }
};

RealHost::RealHost() : impl_(std::make_unique<Impl>()) {}
RealHost::~RealHost() = default;

void RealHost::configure(std::string_view plugin, const json::object& config) {
    impl_->configs[std::string(plugin)] = json::serialize(config);
}

bool RealHost::addEntry(trn_plugin_entry_fn entry, const std::string& displayName) {
    return impl_->registry.loadEntry(entry, displayName, impl_->options());
}

bool RealHost::addFile(const std::string& path) {
    core::PluginOptions o = impl_->options();
    // Loaded as a shipped plugin is: in this process, so no plugin-host child is needed.
    if (auto h = core::detail::sha256Path(path); !h.empty()) o.shippedHashes.insert(h);
    o.isolation.mode = core::Isolation::InProcess;
    return impl_->registry.loadFile(path, o);
}

std::vector<std::string> RealHost::plugins() const {
    std::vector<std::string> out;
    for (auto const& p : impl_->registry.plugins()) out.push_back(p->name);
    return out;
}

std::vector<Rejection> RealHost::rejected() const {
    std::vector<Rejection> out;
    for (auto const& r : impl_->registry.rejected()) out.push_back(Rejection{r.path, r.reason, r.code});
    return out;
}

bool RealHost::setFeatureGate(std::string_view gate, bool on) {
    core::Diagnostics d;
    core::controller::overrideFeatureGates(impl_->settings.featureGates, {{std::string(gate), on}}, d, "featureGates");
    return d.ok();
}

void RealHost::setOperator(const OperatorIdentity& identity) {
    impl_->settings.operatorNamespace = identity.ns;
    impl_->settings.serviceName = identity.serviceName;
    impl_->settings.webhookSecretName = identity.webhookSecretName;
    impl_->settings.statusServerPort = identity.statusServerPort;
}

void RealHost::addObject(json::object object) { impl_->cluster.put(defaulted(std::move(object))); }

void RealHost::failClusterReads(std::string why) { impl_->cluster.failReads(std::move(why)); }

Outcome RealHost::run(Hook hook, const json::object& info) const {
    if (hook != Hook::CustomValidation && hook != Hook::TrainJobStatus) return run(std::vector<Hook>{hook}, info);
    Outcome out = impl_->begin();
    const core::Framework fw = impl_->framework();
    core::Diagnostics d;
    if (hook == Hook::CustomValidation) {
        json::object in = info;
        if (!in.contains("admission")) in["admission"] = json::object{{"operation", "CREATE"}};
        d = fw.validate(in, impl_->cluster);
        out.info = fw.withOperator(std::move(in));
    } else {
        static const json::object none;
        auto* tj = info.if_contains("trainJob");
        out.status = fw.status(tj && tj->is_object() ? tj->as_object() : none, impl_->cluster, d);
        out.info = info;
    }
    return impl_->finish(std::move(out), d);
}

Outcome RealHost::run(const std::vector<Hook>& phases, const json::object& info) const {
    Outcome out = impl_->begin();
    std::vector<core::Hook> hooks;
    for (Hook h : phases) hooks.push_back(hostHook(h));
    auto r = impl_->framework().build(info, impl_->cluster, hooks);
    out.info = std::move(r.info);
    out.objects = std::move(r.objects);
    return impl_->finish(std::move(out), r.diagnostics);
}

Outcome RealHost::build(const json::object& info) const {
    Outcome out = impl_->begin();
    auto r = impl_->framework().build(info, impl_->cluster);
    out.info = std::move(r.info);
    out.objects = std::move(r.objects);
    return impl_->finish(std::move(out), r.diagnostics);
}

Outcome RealHost::buildTrainJob(const json::object& trainJob) const {
    Outcome out = impl_->begin();
    auto r = core::buildTrainJob(impl_->framework(), defaulted(trainJob), impl_->cluster);
    out.info = std::move(r.info);
    out.objects = std::move(r.objects);
    out.runtimeSnapshot = std::move(r.snapshot);
    return impl_->finish(std::move(out), r.diagnostics);
}

Outcome RealHost::admit(const json::object& trainJob, const json::object* oldTrainJob) const {
    Outcome out = impl_->begin();
    const json::object tj = defaulted(trainJob);
    std::optional<json::object> old;
    if (oldTrainJob) old = defaulted(*oldTrainJob);
    core::Diagnostics d = core::validateSchema(tj, old ? &*old : nullptr);
    if (d.ok()) d.append(core::admitTrainJob(impl_->framework(), tj, old ? &*old : nullptr, impl_->cluster));
    return impl_->finish(std::move(out), d);
}

Outcome RealHost::status(const json::object& trainJob) const {
    Outcome out = impl_->begin();
    core::Diagnostics d;
    out.status = impl_->framework().status(trainJob, impl_->cluster, d);
    return impl_->finish(std::move(out), d);
}

}  // namespace trainer::sdk::testing
