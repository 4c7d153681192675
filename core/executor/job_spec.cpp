#include "core/executor/job_spec.hpp"

#include "core/executor/workload_json.hpp"

namespace trainer::core::executor {

namespace {

using namespace workload;

// An optional non-negative integer member; false with `error` set when present but invalid.
bool readCount(const json::object& spec, std::string_view key, const std::string& path, std::optional<int64_t>& out,
               std::string& error, int64_t min = 0) {
    auto* v = spec.if_contains(key);
    if (!v || v->is_null()) return true;
    auto n = intAt(&spec, key);
    if (!n || *n < min || *n > INT32_MAX) {
        error = path + std::string(key) + ": Invalid value: " + json::serialize(*v) + ": must be " +
                (min == 0 ? "greater than or equal to 0" : "greater than 0") + (n ? "" : " (an integer)");
        return false;
    }
    out = n;
    return true;
}

bool readTemplate(const json::object& spec, const std::string& path, JobParams& p, std::string& error) {
    auto* tpl = objectAt(&spec, "template");
    auto* podSpec = objectAt(tpl, "spec");
    if (!tpl || !podSpec) {
        error = path + "template: Required value: a pod template object with a spec";
        return false;
    }
    auto* containers = arrayAt(podSpec, "containers");
    if (!containers || containers->empty()) {
        error = path + "template.spec.containers: Required value";
        return false;
    }
    for (auto const& c : *containers)
        if (!c.is_object() || stringAt(&c.get_object(), "name").empty()) {
            error = path + "template.spec.containers: Invalid value: every container needs a name";
            return false;
        }
    p.restartPolicy = stringAt(podSpec, "restartPolicy");
    if (p.restartPolicy != "OnFailure" && p.restartPolicy != "Never") {
        error = path + "template.spec.restartPolicy: Unsupported value: \"" + p.restartPolicy +
                "\": supported values: \"OnFailure\", \"Never\"";
        return false;
    }
    p.podTemplate = *tpl;
    return true;
}

}  // namespace

std::optional<JobParams> parseJobSpec(const json::object* spec, const std::string& path, std::string& error) {
    if (!spec) {
        error = path.empty() ? "spec: Required value" : path.substr(0, path.size() - 1) + ": Required value";
        return std::nullopt;
    }
    JobParams p;
    std::optional<int64_t> parallelism, backoffLimit, deadline;
    if (!readCount(*spec, "parallelism", path, parallelism, error) ||
        !readCount(*spec, "completions", path, p.completions, error) ||
        !readCount(*spec, "backoffLimit", path, backoffLimit, error) ||
        !readCount(*spec, "activeDeadlineSeconds", path, deadline, error, 1))
        return std::nullopt;
    // Both unset: a non-parallel Job, completions and parallelism 1.
    if (!parallelism && !p.completions) p.completions = 1;
    p.parallelism = parallelism.value_or(1);
    p.backoffLimit = backoffLimit.value_or(6);
    p.activeDeadlineSeconds = deadline;
    std::string mode = stringAt(spec, "completionMode");
    if (!mode.empty() && mode != "NonIndexed" && mode != "Indexed") {
        error = path + "completionMode: Unsupported value: \"" + mode + "\": supported values: \"NonIndexed\", \"Indexed\"";
        return std::nullopt;
    }
    p.indexed = mode == "Indexed";
    if (p.indexed && !p.completions) {
        error = path + "completions: Required value: when completion mode is Indexed";
        return std::nullopt;
    }
    p.suspend = boolAt(spec, "suspend").value_or(false);
    std::string replacement = stringAt(spec, "podReplacementPolicy");
    p.onlyReplaceFailedPods = replacement == "Failed" || (replacement.empty() && objectAt(spec, "podFailurePolicy"));
    if (!readTemplate(*spec, path, p, error)) return std::nullopt;
    return p;
}

}  // namespace trainer::core::executor
