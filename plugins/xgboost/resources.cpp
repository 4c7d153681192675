#include "resources.hpp"

#include <trainer/quantity.hpp>

#include <cctype>
#include <string>

namespace trainer::plugins::xgboost {

std::optional<int64_t> ceilQuantity(const json::value& q) {
    auto parsed = sdk::Quantity::fromJson(q);
    if (!parsed || parsed->nanoValue() < 0) return std::nullopt;
    return parsed->ceilToInt();
}

int64_t gpuInList(const json::object* list) {
    if (!list) return 0;
    for (auto const& kv : *list) {
        std::string lower(kv.key());
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower.find("gpu") != std::string::npos) return ceilQuantity(kv.value()).value_or(0);
    }
    return 0;
}

int64_t gpuCount(const json::object* resources) {
    if (!resources) return 0;
    int64_t g = gpuInList(sdk::getObject(*resources, "requests"));
    return g != 0 ? g : gpuInList(sdk::getObject(*resources, "limits"));
}

int64_t cpuCount(const json::object* resources) {
    if (!resources) return 0;
    for (auto key : {"requests", "limits"}) {
        auto* list = sdk::getObject(*resources, key);
        if (!list) continue;
        auto it = list->find("cpu");
        if (it == list->end()) continue;
        if (auto v = ceilQuantity(it->value()); v && *v != 0) return *v;
    }
    return 0;
}

const json::object* runtimeTrainerResources(const sdk::Info& info) {
    auto* jobs = sdk::getArray(info.jobSetSpec(), "replicatedJobs");
    if (!jobs) return nullptr;
    for (auto const& j : *jobs) {
        if (!j.is_object()) continue;
        auto const& job = j.as_object();
        bool named = sdk::getString(job, "name").value_or("") == "node";
        auto* labels = sdk::getPath(job, {"template", "metadata", "labels"});
        bool trainer = labels && sdk::getString(*labels, "trainer.kubeflow.org/trainjob-ancestor-step").value_or("") ==
                                     "trainer";
        if (!named && !trainer) continue;
        auto* pod = sdk::getPath(job, {"template", "spec", "template", "spec"});
        if (!pod) continue;
        auto* containers = sdk::getArray(*pod, "containers");
        if (!containers) continue;
        for (auto const& c : *containers)
            if (c.is_object() && sdk::getString(c.as_object(), "name").value_or("") == "node")
                if (auto* res = sdk::getObject(c.as_object(), "resources")) return res;
    }
    return nullptr;
}

const json::object* effectiveResources(const sdk::Info& info) {
    if (auto* t = info.trainer())
        if (auto* r = sdk::getObject(*t, "resourcesPerNode")) return r;
    return runtimeTrainerResources(info);
}

}  // namespace trainer::plugins::xgboost
