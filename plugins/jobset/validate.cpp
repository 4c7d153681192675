// CustomValidation: upstream Validate (initializers, runtimePatches, update rules) in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/jobset/jobset.go.
#include "jobset.hpp"
#include "json_util.hpp"

#include <array>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace trainer::plugins::jobset {

namespace {

constexpr std::string_view kRuntimeRefPath = "spec.runtimeRef";
constexpr std::string_view kRuntimePatchesPath = "spec.runtimePatches";
constexpr std::string_view kManagerPath = "spec.runtimePatches.manager";

// One initializer check: job and container name, and the TrainJob config it names.
struct InitializerCheck {
    std::string_view member;  // spec.initializer.<member>
    std::string_view job;     // replicated job and container name
    std::string_view config;  // "datasetConfig" / "modelConfig" in the message
};
constexpr std::array<InitializerCheck, 2> kInitializerChecks = {{
    {"dataset", "dataset-initializer", "datasetConfig"},
    {"model", "model-initializer", "modelConfig"},
}};

// Containers that must get env only through the Trainer / Initializer APIs.
const std::set<std::string_view> kReservedEnvContainers = {"dataset-initializer", "model-initializer", "node"};

// Container names (init and regular: names are unique across both) per replicated job.
using ContainerIndex = std::map<std::string, std::set<std::string>, std::less<>>;

ContainerIndex indexContainers(const json::object& jobSetSpec) {
    ContainerIndex out;
    const json::array* rjobs = sdk::getArray(jobSetSpec, "replicatedJobs");
    if (!rjobs) return out;
    for (auto const& v : *rjobs) {
        if (!v.is_object()) continue;
        auto name = sdk::getString(v.as_object(), "name");
        if (!name) continue;
        auto& set = out[std::string(*name)];
        const auto* podSpec = sdk::getPath(v.as_object(), {"template", "spec", "template", "spec"});
        if (!podSpec) continue;
        for (auto key : {"initContainers", "containers"})
            if (const auto* list = sdk::getArray(*podSpec, key))
                for (auto const& c : *list)
                    if (c.is_object())
                        if (auto n = sdk::getString(c.as_object(), "name")) set.emplace(*n);
    }
    return out;
}

// The runtime's container index, built on first use: only a TrainJob with initializers or
// runtime patches needs it, and building it parses the Info's jobSetSpec, its largest member.
class LazyIndex {
public:
    explicit LazyIndex(const sdk::Info& info) : info_(info) {}
    const ContainerIndex& get() {
        if (!index_) index_ = indexContainers(info_.jobSetSpec());
        return *index_;
    }

private:
    const sdk::Info& info_;
    std::optional<ContainerIndex> index_;
};

const json::object* podSpecOf(const json::object& jobSetSpec, std::string_view job) {
    const auto* rj = sdk::findByKey(sdk::getArray(jobSetSpec, "replicatedJobs"), "name", job);
    return rj ? sdk::getPath(*rj, {"template", "spec", "template", "spec"}) : nullptr;
}

void validateInitializers(const sdk::Info& info, LazyIndex& lazy, sdk::Context& ctx) {
    const json::object* initializer = sdk::getObject(info.spec(), "initializer");
    if (!initializer) return;
    for (auto const& chk : kInitializerChecks) {
        if (!sdk::getObject(*initializer, chk.member)) continue;
        const ContainerIndex& index = lazy.get();
        std::string job(chk.job);
        auto it = index.find(chk.job);
        if (it == index.end()) {
            ctx.error(kRuntimeRefPath,
                      "must have " + job + " job when trainJob is configured with input " + std::string(chk.config));
        } else if (!it->second.contains(job)) {
            ctx.error(kRuntimeRefPath, "must have container with name - " + job + " in the " + job + " job");
        } else {
            // The mount is looked for in regular containers only, as upstream's jobset.go Validate
            // does: an initializer that is an init container passes the name check above but is
            // refused here, and the builder would never give it STORAGE_URI (it only fills
            // regular containers).
            const auto* podSpec = podSpecOf(info.jobSetSpec(), chk.job);
            const json::object* c = podSpec ? sdk::findByKey(sdk::getArray(*podSpec, "containers"), "name", chk.job)
                                            : nullptr;
            if (!c || !sdk::findByKey(sdk::getArray(*c, "volumeMounts"), "name", "initializer"))
                ctx.error(kRuntimeRefPath, "must have volumeMount with name - initializer in container " + job +
                                               " of the " + job + " job");
        }
    }
}

// k8s.io/apimachinery validation.IsDomainPrefixedPath, same messages.
std::vector<std::string> domainPrefixedPathErrors(std::string_view value) {
    static const std::regex kSubdomain("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    static const std::regex kHttpPath("[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+");
    if (value.empty()) return {"Required value"};
    auto slash = value.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 == value.size())
        return {"must be a domain-prefixed path (such as \"acme.io/foo\")"};
    std::string host(value.substr(0, slash)), path(value.substr(slash + 1));
    std::vector<std::string> errs;
    if (host.size() > 253) errs.emplace_back("must be no more than 253 characters");
    if (!std::regex_match(host, kSubdomain))
        errs.emplace_back(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
            "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    if (!std::regex_match(path, kHttpPath))
        errs.emplace_back("must be a valid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')");
    return errs;
}

void validatePatches(const sdk::Info& info, LazyIndex& lazy, sdk::Context& ctx) {
    const json::array* patches = sdk::getArray(info.spec(), "runtimePatches");
    if (!patches) return;
    for (auto const& pv : *patches) {
        if (!pv.is_object()) continue;
        const auto& patch = pv.as_object();
        if (auto it = patch.find("manager"); it != patch.end() && it->value().is_string())
            for (auto const& e : domainPrefixedPathErrors(it->value().as_string())) ctx.error(kManagerPath, e);
        const auto* rtSpec = sdk::getPath(patch, {"trainingRuntimeSpec", "template", "spec"});
        const json::array* rjobs = rtSpec ? sdk::getArray(*rtSpec, "replicatedJobs") : nullptr;
        if (!rjobs) continue;
        const ContainerIndex& index = lazy.get();
        for (auto const& rv : *rjobs) {
            if (!rv.is_object()) continue;
            std::string job(sdk::getString(rv.as_object(), "name").value_or(""));
            auto known = index.find(job);
            if (known == index.end()) {
                ctx.error(kRuntimePatchesPath, "must not have replicated job that doesn't exist in the runtime job template");
                continue;
            }
            const auto* podSpec = sdk::getPath(rv.as_object(), {"template", "spec", "template", "spec"});
            if (!podSpec) continue;
            if (const auto* inits = sdk::getArray(*podSpec, "initContainers"))
                for (auto const& c : *inits)
                    if (c.is_object() &&
                        !known->second.contains(std::string(sdk::getString(c.as_object(), "name").value_or(""))))
                        ctx.error(kRuntimePatchesPath, "must not have initContainer that doesn't exist in the runtime job " + job);
            if (const auto* cs = sdk::getArray(*podSpec, "containers"))
                for (auto const& c : *cs) {
                    if (!c.is_object()) continue;
                    std::string cname(sdk::getString(c.as_object(), "name").value_or(""));
                    const auto* env = sdk::getArray(c.as_object(), "env");
                    if (!known->second.contains(cname))
                        ctx.error(kRuntimePatchesPath, "must not have container that doesn't exist in the runtime job " + job);
                    else if (env && !env->empty() && kReservedEnvContainers.contains(cname))
                        ctx.error(kRuntimePatchesPath,
                                  "must not have envs for the dataset-initializer, model-initializer, node containers");
                }
        }
    }
}

const json::value* member(const json::object* o, std::string_view key) {
    if (!o) return nullptr;
    auto it = o->find(key);
    return it == o->end() ? nullptr : &it->value();
}

// On UPDATE: runtimePatches change only around a suspension and while no replicated job is active.
void validateUpdate(const sdk::Info& info, sdk::Context& ctx) {
    const json::object* admission = info.admission();
    const json::object* oldJob = admission ? sdk::getObject(*admission, "oldTrainJob") : nullptr;
    if (!oldJob) return;
    const json::object* oldSpec = sdk::getObject(*oldJob, "spec");
    if (util::semanticEqual(member(oldSpec, "runtimePatches"), member(&info.spec(), "runtimePatches"))) return;
    bool oldSuspended = oldSpec && sdk::getBool(*oldSpec, "suspend").value_or(false);
    bool newSuspended = sdk::getBool(info.spec(), "suspend").value_or(false);
    if (!oldSuspended && !newSuspended) {
        ctx.error(kRuntimePatchesPath,
                  "RuntimePatches can only be modified when the TrainJob is suspended before or after the update");
        return;
    }
    auto jobSet = ctx.lookup(kApiVersion, kKind, info.ns(), info.name());
    if (!jobSet) return;
    const auto* status = sdk::getObject(*jobSet, "status");
    const json::array* rjs = status ? sdk::getArray(*status, "replicatedJobsStatus") : nullptr;
    if (!rjs) return;
    for (auto const& r : *rjs)
        if (r.is_object() && sdk::getInt(r.as_object(), "active").value_or(0) > 0)
            ctx.error(kRuntimePatchesPath, "RuntimePatches cannot be modified when the JobSet's ReplicatedJob " +
                                               std::string(sdk::getString(r.as_object(), "name").value_or("")) +
                                               " is still active");
}

}  // namespace

void JobSet::validate(const sdk::Info& info, sdk::Context& ctx) {
    LazyIndex index(info);
    validateInitializers(info, index, ctx);
    validateUpdate(info, ctx);
    validatePatches(info, index, ctx);
}

}  // namespace trainer::plugins::jobset
