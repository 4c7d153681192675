// TrainJobStatus: JobSet conditions and replicated job counts → TrainJob status (upstream Status in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/runtime/framework/plugins/jobset/jobset.go;
// the condition types and reasons in
// https://github.com/kubeflow/trainer/blob/8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3/pkg/apis/trainer/v1alpha1/trainjob_types.go).
#include "jobset.hpp"
#include "json_util.hpp"

#include <array>
#include <chrono>
#include <ctime>
#include <string>

namespace trainer::plugins::jobset {

namespace {

// JobSet condition type → TrainJob condition type (copied only when True).
constexpr std::array<std::pair<std::string_view, std::string_view>, 2> kConditionMap = {{
    {"Completed", "Complete"},
    {"Failed", "Failed"},
}};
constexpr std::array<std::string_view, 5> kJobCounters = {"ready", "succeeded", "failed", "active", "suspended"};

json::object* findCondition(json::array& conditions, std::string_view type) {
    for (auto& c : conditions)
        if (c.is_object() && sdk::getString(c.as_object(), "type").value_or("") == type) return &c.as_object();
    return nullptr;
}

const json::object* findCondition(const json::array* conditions, std::string_view type) {
    return sdk::findByKey(conditions, "type", type);
}

bool isTrue(const json::object& c) { return sdk::getString(c, "status").value_or("") == "True"; }

std::string nowRfc3339() {
    std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

// apimachinery meta.SetStatusCondition: lastTransitionTime changes only when status flips.
void setStatusCondition(json::array& conditions, json::object cond) {
    auto ltt = sdk::getString(cond, "lastTransitionTime");
    json::object* existing = findCondition(conditions, sdk::getString(cond, "type").value_or(""));
    if (!existing) {
        if (!ltt || ltt->empty()) cond["lastTransitionTime"] = nowRfc3339();
        conditions.push_back(std::move(cond));
        return;
    }
    if (sdk::getString(*existing, "status") != sdk::getString(cond, "status")) {
        (*existing)["status"] = cond["status"];
        (*existing)["lastTransitionTime"] = (ltt && !ltt->empty()) ? json::value(*ltt) : json::value(nowRfc3339());
    }
    for (auto key : {"reason", "message", "observedGeneration"}) {
        if (auto it = cond.find(key); it != cond.end()) (*existing)[key] = it->value();
        else existing->erase(key);
    }
}

bool isFinished(const json::object& status) {
    const json::array* conds = sdk::getArray(status, "conditions");
    for (auto type : {"Complete", "Failed"})
        if (const auto* c = findCondition(conds, type); c && isTrue(*c)) return true;
    return false;
}

}  // namespace

std::optional<json::object> JobSet::status(const json::object& trainJob, sdk::Context& ctx) {
    static const json::object kEmpty;
    const json::object* md = sdk::getObject(trainJob, "metadata");
    std::string_view name = md ? sdk::getString(*md, "name").value_or("") : "";
    std::string_view ns = md ? sdk::getString(*md, "namespace").value_or("") : "";
    const json::object* current = sdk::getObject(trainJob, "status");

    auto jobSet = ctx.lookup(kApiVersion, kKind, ns, name);
    if (!jobSet) {
        // The JobSet may have been removed by its TTL after the TrainJob finished.
        if (current && isFinished(*current)) return std::nullopt;
        ctx.error("", "jobsets.jobset.x-k8s.io \"" + std::string(name) + "\" not found");
        return std::nullopt;
    }

    json::object status = current ? *current : kEmpty;
    const json::object* jsStatus = sdk::getObject(*jobSet, "status");
    const json::array* jsConds = jsStatus ? sdk::getArray(*jsStatus, "conditions") : nullptr;
    for (auto const& [from, to] : kConditionMap) {
        const json::object* c = findCondition(jsConds, from);
        if (!c || !isTrue(*c)) continue;
        json::object copy = *c;
        copy["type"] = to;
        setStatusCondition(util::ensureArray(status, "conditions"), std::move(copy));
    }

    const json::array* rjs = jsStatus ? sdk::getArray(*jsStatus, "replicatedJobsStatus") : nullptr;
    if (!rjs || rjs->empty()) {
        status.erase("jobsStatus");
    } else {
        json::array jobs;
        jobs.reserve(rjs->size());
        for (auto const& r : *rjs) {
            if (!r.is_object()) continue;
            json::object j{{"name", sdk::getString(r.as_object(), "name").value_or("")}};
            for (auto key : kJobCounters) j[key] = sdk::getInt(r.as_object(), key).value_or(0);
            jobs.push_back(std::move(j));
        }
        status["jobsStatus"] = std::move(jobs);
    }
    return status;
}

}  // namespace trainer::plugins::jobset
