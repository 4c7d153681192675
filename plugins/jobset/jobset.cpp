#include "jobset.hpp"

#include <string>

namespace trainer::plugins::jobset {

JobSet::JobSet(const json::object&, sdk::Context&) {}

sdk::PluginMeta JobSet::meta() {
    return {.name = "jobset",
            .version = "0.1.0",
            .description = "Builds the JobSet of a TrainJob and maps its status back.",
            .claims = {"kind:jobset.x-k8s.io/v1alpha2/JobSet"},
            .watches = {{"jobset.x-k8s.io/v1alpha2", "JobSet", TRN_WATCH_OWNED}}};
}

void JobSet::preBuild(const sdk::Info& info, sdk::Edits& edits, sdk::Context&) {
    const json::array* rjobs = sdk::getArray(info.jobSetSpec(), "replicatedJobs");
    if (!rjobs) return;
    const json::array& podSets = info.podSets();

    const std::string subdomain = sdk::podSubdomain(info);

    // 1. Endpoints: PodSet i pairs with replicatedJobs[i] (positional, as upstream).
    for (size_t i = 0; i < podSets.size() && i < rjobs->size(); ++i) {
        if (!podSets[i].is_object() || !(*rjobs)[i].is_object()) continue;
        const auto& ps = podSets[i].as_object();
        const auto& rj = (*rjobs)[i].as_object();
        auto psName = sdk::getString(ps, "name");
        auto rjName = sdk::getString(rj, "name").value_or("");
        if (!psName) continue;
        int64_t replicas = sdk::getInt(rj, "replicas").value_or(1);
        int64_t count = sdk::getInt(ps, "count").value_or(1);
        json::array endpoints;
        if (replicas > 0 && count > 0) endpoints.reserve(static_cast<size_t>(replicas * count));
        for (int64_t r = 0; r < replicas; ++r)
            for (int64_t p = 0; p < count; ++p) endpoints.emplace_back(sdk::podDnsName(info.name(), rjName, r, p, subdomain));
        edits.set(sdk::Edits::podSetPath(*psName) + "/endpoints", std::move(endpoints));
    }

    // 2. parallelism = completions = count on the replicated job of the same name.
    for (auto const& v : podSets) {
        if (!v.is_object()) continue;
        const auto& ps = v.as_object();
        auto psName = sdk::getString(ps, "name");
        auto count = sdk::getInt(ps, "count");
        if (!psName || !count || !sdk::findByKey(rjobs, "name", *psName)) continue;
        std::string base = "/jobSetSpec/replicatedJobs/" + sdk::pointerSegment(*psName) + "/template/spec/";
        edits.set(base + "parallelism", *count);
        edits.set(base + "completions", *count);
    }
}

void JobSet::build(const sdk::Info& info, sdk::Objects& objects, sdk::Context& ctx) {
    // Running JobSets are never updated: skip when one exists and neither side is suspended.
    if (auto existing = ctx.lookup(kApiVersion, kKind, info.ns(), info.name())) {
        bool trainJobSuspended = sdk::getBool(info.spec(), "suspend").value_or(false);
        const auto* spec = sdk::getObject(*existing, "spec");
        bool jobSetSuspended = spec && sdk::getBool(*spec, "suspend").value_or(false);
        if (!trainJobSuspended && !jobSetSuspended) return;
    }
    if (auto js = buildJobSet(info, ctx)) objects.add(*js);
}

}  // namespace trainer::plugins::jobset
