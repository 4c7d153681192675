// Fuzz target 2: an AdmissionReview body as the webhook server receives it. serveAdmission
// (core/server/webhook.cpp) decodes the review; the mutating and validating handlers then judge
// its object exactly as core/cli/run_command.cpp registerWebhooks wires them: the mutating one
// stamps runtime-patch times and answers the JSON Patch from the original to the mutated object,
// the validating one runs controller::admit (defaults, schema and CEL, the runtime and TrainJob
// webhook rules, the Info build) against a fixed cluster: the runtimes in examples/.
//
// The handlers run outside serveAdmission, which turns a handler's exception into a 500: an
// exception escaping admission is a finding, and this way it escapes with its stack. Their answers
// then go back through serveAdmission, as the server writes them.
//
// TRAINER_FUZZ_PLUGIN_DIR, when set, loads the plugins of that directory into the framework
// (their CustomValidation and policy claims run; their code is not coverage-instrumented).
#include "core/api/admission.hpp"
#include "core/api/schema.hpp"
#include "core/controller/admission_control.hpp"
#include "core/json/io.hpp"
#include "core/plugin/framework.hpp"
#include "core/server/webhook.hpp"
#include "core/store/store.hpp"
#include "test/fuzz/fuzz_support.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>

using namespace trainer::core;
namespace srv = trainer::core::server;

namespace {

const auto kNow = std::chrono::system_clock::time_point(std::chrono::seconds(1735689600));  // 2025-01-01T00:00:00Z

struct State {
    PluginRegistry registry;
    std::unique_ptr<Framework> framework;
    ObjectSet cluster;
};

// The objects of examples/ (runtimes, and whatever else they hold) as a stored cluster: defaulted,
// namespaced, TrainJobs left out (they are what the fuzzer sends).
void addClusterState(ObjectSet& cluster) {
    std::vector<InputDocument> docs;
    std::string root = TRAINER_SOURCE_DIR;
    Diagnostics d = readInputs({root + "/examples", root + "/examples/local", root + "/test/fixtures/upstream/reference/runtimes"}, docs);
    fuzz::require(d.ok() && !docs.empty(), "examples/ do not read as cluster state");
    for (auto& doc : docs) {
        if (kindOf(doc.object) == ObjectKind::TrainJob) continue;
        if (kindOf(doc.object) == ObjectKind::TrainingRuntime) {
            auto& md = doc.object["metadata"].as_object();
            if (!md.contains("namespace")) md["namespace"] = "default";
        }
        applyDefaults(doc.object);
        cluster.put(std::move(doc.object));
    }
}

State& state() {
    static State* s = [] {
        auto* st = new State();  // lives for the process
        if (const char* dir = std::getenv("TRAINER_FUZZ_PLUGIN_DIR"); dir && *dir) st->registry.loadDirectory(dir);
        st->framework = std::make_unique<Framework>(st->registry);
        addClusterState(st->cluster);
        return st;
    }();
    return *s;
}

const json::object* objectOf(const json::value& v) { return v.is_object() ? &v.get_object() : nullptr; }

srv::AdmissionResponse badObject() { return srv::AdmissionResponse::denyMessage("the admission request carries no object"); }

// The mutating webhook's answer; its patch must turn the original object into the mutated one.
srv::AdmissionResponse mutate(const srv::AdmissionRequest& req) {
    auto* obj = objectOf(req.object);
    if (!obj) return badObject();
    json::object mutated = *obj;
    stampRuntimePatchTimes(mutated, req.operation == "UPDATE" ? objectOf(req.oldObject) : nullptr, formatRfc3339(kNow));
    auto answer = srv::AdmissionResponse::patched(req.object, mutated);
    std::string error;
    auto patched = srv::applyPatch(req.object, answer.patch, error);
    fuzz::require(patched.has_value(), "the mutating webhook's patch does not apply: " + error, json::serialize(answer.patch));
    fuzz::require(*patched == json::value(mutated), "the mutating webhook's patch does not give the mutated object",
                  json::serialize(answer.patch));
    return answer;
}

srv::AdmissionResponse validate(const srv::AdmissionRequest& req) {
    auto* obj = objectOf(req.object);
    if (!obj) return badObject();
    json::object copy = *obj;
    State& st = state();
    auto r = controller::admit(*st.framework, copy, req.operation == "UPDATE" ? objectOf(req.oldObject) : nullptr, st.cluster, kNow);
    auto d = r.all();
    std::vector<std::string> warnings;
    for (auto const& w : d.warnings) warnings.push_back(w.message);
    return d.ok() ? srv::AdmissionResponse::allow(warnings) : srv::AdmissionResponse::deny(d.errors, warnings);
}

// Serves `req` answering `answer` (or capturing the decoded request when `captured` is given).
srv::Response serve(const srv::Request& req, std::string_view webhook, std::optional<srv::AdmissionRequest>* captured,
                    const srv::AdmissionResponse& answer = {}) {
    auto res = srv::serveAdmission(req, webhook, [&](const srv::AdmissionRequest& r) {
        if (captured) *captured = r;
        return answer;
    });
    fuzz::require(res.status == 200 || res.status == 400, "webhook answered HTTP " + std::to_string(res.status), res.body);
    auto body = parseJsonObject(res.body);
    fuzz::require(body && body->contains("response"), "webhook answer is not an AdmissionReview", res.body);
    return res;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    state();
    srv::Request req;
    req.method = "POST";
    req.path = std::string(srv::kValidateTrainJobPath);
    req.headers = {{"content-type", "application/json"}};
    req.body.assign(reinterpret_cast<const char*>(data), size);
    req.remote = "127.0.0.1:1";

    std::optional<srv::AdmissionRequest> parsed;
    serve(req, srv::kValidateTrainJobName, &parsed);
    if (!parsed) return 0;
    serve(req, srv::kMutateTrainJobName, nullptr, mutate(*parsed));
    serve(req, srv::kValidateTrainJobName, nullptr, validate(*parsed));
    return 0;
}
