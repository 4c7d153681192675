#include "core/executor/jobset_spec.hpp"

#include "core/executor/workload_json.hpp"
#include "core/executor/workload_names.hpp"

#include <set>

namespace trainer::core::executor {

namespace {

using namespace workload;

// A DNS-1123 label (what a replicated job name must be, it is part of Job and pod names).
bool dnsLabel(const std::string& s) {
    if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-') return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    return true;
}

// The JobSet webhook's defaults on a replicated job's Job template spec.
json::object defaultedJobSpec(const json::object& spec) {
    json::object out = spec;
    if (stringAt(&out, "completionMode").empty()) out["completionMode"] = "Indexed";
    auto& podSpec = ensureObject(ensureObject(out, "template"), "spec");
    if (stringAt(&podSpec, "restartPolicy").empty()) podSpec["restartPolicy"] = "OnFailure";
    return out;
}

bool parseReplicatedJob(const json::value& v, const std::string& path, ReplicatedJobSpec& rj, std::string& error) {
    if (!v.is_object()) return error = path + ": Invalid value: must be an object", false;
    auto const& o = v.get_object();
    rj.name = stringAt(&o, "name");
    if (!dnsLabel(rj.name))
        return error = path + ".name: Invalid value: \"" + rj.name + "\": must be a DNS-1123 label", false;
    if (auto g = stringAt(&o, "groupName"); !g.empty()) rj.groupName = g;
    if (auto* r = o.if_contains("replicas"); r && !r->is_null()) {
        auto n = intAt(&o, "replicas");
        if (!n || *n < 0 || *n > INT32_MAX)
            return error = path + ".replicas: Invalid value: " + json::serialize(*r) + ": must be greater than or equal to 0", false;
        rj.replicas = *n;
    }
    auto* tpl = objectAt(&o, "template");
    if (!tpl) return error = path + ".template: Required value: a Job template object", false;
    if (auto* m = objectAt(tpl, "metadata")) rj.templateMetadata = *m;
    auto* spec = objectAt(tpl, "spec");
    if (!spec) return error = path + ".template.spec: Required value", false;
    rj.jobSpec = defaultedJobSpec(*spec);
    if (!parseJobSpec(&rj.jobSpec, path + ".template.spec.", error)) return false;
    if (auto* deps = arrayAt(&o, "dependsOn"))
        for (auto const& d : *deps) {
            DependsOnSpec dep{stringAt(d.is_object() ? &d.get_object() : nullptr, "name"),
                              stringAt(d.is_object() ? &d.get_object() : nullptr, "status")};
            if (dep.status != "Ready" && dep.status != "Complete")
                return error = path + ".dependsOn: Unsupported value: \"" + dep.status + "\": supported values: \"Ready\", \"Complete\"", false;
            rj.dependsOn.push_back(std::move(dep));
        }
    return true;
}

bool parseReplicatedJobs(const json::object& spec, const std::string& jsName, JobSetParams& p, std::string& error) {
    auto* list = arrayAt(&spec, "replicatedJobs");
    if (!list || list->empty()) return error = "spec.replicatedJobs: Required value: at least one replicated job", false;
    std::set<std::string> seen;
    for (size_t i = 0; i < list->size(); ++i) {
        std::string path = "spec.replicatedJobs[" + std::to_string(i) + "]";
        ReplicatedJobSpec rj;
        if (!parseReplicatedJob((*list)[i], path, rj, error)) return false;
        if (!seen.insert(rj.name).second) return error = path + ".name: Duplicate value: \"" + rj.name + "\"", false;
        for (auto const& d : rj.dependsOn)
            if (!seen.contains(d.name) || d.name == rj.name)
                return error = path + ".dependsOn: Invalid value: \"" + d.name + "\": must name an earlier replicated job", false;
        std::string longest = childJobName(jsName, rj.name, std::max<int64_t>(0, rj.replicas - 1));
        if (longest.size() > 63)
            return error = path + ".name: Invalid value: \"" + rj.name + "\": Job name \"" + longest + "\" must be no more than 63 characters", false;
        p.replicatedJobs.push_back(std::move(rj));
    }
    return true;
}

void parseNetwork(const json::object& spec, const std::string& jsName, JobSetParams& p) {
    auto* net = objectAt(&spec, "network");
    p.dnsHostnames = boolAt(net, "enableDNSHostnames").value_or(true);
    p.publishNotReadyAddresses = boolAt(net, "publishNotReadyAddresses").value_or(true);
    p.subdomain = stringAt(net, "subdomain");
    if (p.subdomain.empty()) p.subdomain = jsName;
}

bool parsePolicies(const json::object& spec, JobSetParams& p, std::string& error) {
    if (auto* sp = objectAt(&spec, "successPolicy")) {
        if (auto op = stringAt(sp, "operator"); !op.empty()) p.successOperator = op;
        p.successTargets = stringsAt(sp, "targetReplicatedJobs");
    }
    if (p.successOperator != "All" && p.successOperator != "Any")
        return error = "spec.successPolicy.operator: Unsupported value: \"" + p.successOperator + "\": supported values: \"All\", \"Any\"", false;
    if (auto* fp = objectAt(&spec, "failurePolicy")) {
        p.hasFailurePolicy = true;
        p.maxRestarts = std::max<int64_t>(0, intAt(fp, "maxRestarts").value_or(0));
        p.blockingRecreate = stringAt(fp, "restartStrategy") == "BlockingRecreate";
        if (auto* rules = arrayAt(fp, "rules"))
            for (size_t i = 0; i < rules->size(); ++i) {
                auto* r = (*rules)[i].is_object() ? &(*rules)[i].get_object() : nullptr;
                FailurePolicyRule rule{stringAt(r, "name"), stringAt(r, "action"), stringsAt(r, "onJobFailureReasons"),
                                       stringsAt(r, "targetReplicatedJobs")};
                if (rule.name.empty()) rule.name = "failurePolicyRule" + std::to_string(i);
                p.failureRules.push_back(std::move(rule));
            }
    }
    auto* startup = objectAt(&spec, "startupPolicy");
    p.inOrderStartup = stringAt(startup, "startupPolicyOrder") == "InOrder";
    p.ttlSecondsAfterFinished = intAt(&spec, "ttlSecondsAfterFinished");
    return true;
}

}  // namespace

const ReplicatedJobSpec* JobSetParams::find(const std::string& name) const {
    for (auto const& rj : replicatedJobs)
        if (rj.name == name) return &rj;
    return nullptr;
}

std::optional<JobSetParams> parseJobSet(const json::object& js, std::string& error) {
    auto* spec = objectAt(&js, "spec");
    if (!spec) return error = "spec: Required value", std::nullopt;
    std::string name = stringAt(&metadataOf(js), "name");
    JobSetParams p;
    if (!parseReplicatedJobs(*spec, name, p, error) || !parsePolicies(*spec, p, error)) return std::nullopt;
    parseNetwork(*spec, name, p);
    p.suspend = boolAt(spec, "suspend").value_or(false);
    p.managedBy = stringAt(spec, "managedBy");
    if (auto* c = objectAt(spec, "coordinator")) {
        p.coordinatorEndpoint = name + "-" + stringAt(c, "replicatedJob") + "-" + std::to_string(intAt(c, "jobIndex").value_or(0)) +
                                "-" + std::to_string(intAt(c, "podIndex").value_or(0)) + "." + p.subdomain;
    }
    return p;
}

}  // namespace trainer::core::executor
