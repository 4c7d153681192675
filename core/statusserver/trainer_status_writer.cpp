#include "core/statusserver/trainer_status_writer.hpp"

#include "core/api/kinds.hpp"
#include "core/api/schema.hpp"

namespace trainer::core::statusserver {

namespace {

constexpr std::string_view kField = "status.trainerStatus";

ObjectKey trainJobKey(std::string_view ns, std::string_view name) {
    return ObjectKey{std::string(kTrainerApiVersion), "TrainJob", std::string(ns), std::string(name)};
}

// Whether `path` is status.trainerStatus or below it.
bool underTrainerStatus(const std::string& path) {
    if (path.compare(0, kField.size(), kField) != 0) return false;
    return path.size() == kField.size() || path[kField.size()] == '.' || path[kField.size()] == '[';
}

// The API server's message for an invalid object, or "" when the new trainerStatus is valid:
// `TrainJob.trainer.kubeflow.org "<name>" is invalid: <path>: <detail>[, ...]`.
std::string invalidMessage(const json::object& next, const json::object& current, std::string_view name) {
    std::vector<std::string> errors;
    for (const auto& e : validateSchema(next, &current).errors)
        if (underTrainerStatus(e.path)) errors.push_back(e.path + ": " + e.message);
    if (errors.empty()) return {};
    std::string joined;
    for (const auto& e : errors) joined += (joined.empty() ? "" : ", ") + e;
    if (errors.size() > 1) joined = "[" + joined + "]";
    return "TrainJob.trainer.kubeflow.org " + json::serialize(json::value(name)) + " is invalid: " + joined;
}

// Absent, or only missing from a reader that lags (an informer cache)? Decided inside a write
// transaction that cannot write (see the header). Returns nullopt when the TrainJob exists after
// all (the caller reads again).
std::optional<WriteResult> confirmAbsent(Store& store, const ObjectKey& key) {
    json::object probe{{"apiVersion", key.apiVersion},
                       {"kind", key.kind},
                       {"metadata", json::object{{"namespace", key.ns}, {"name", key.name}, {"resourceVersion", "0"}}},
                       {"status", json::object{}}};
    auto r = store.updateStatus(probe);
    if (r.status == StoreStatus::NotFound) return WriteResult{WriteOutcome::NotFound, r.message};
    // The embedded store answers Conflict for an existing object; kube-apiserver (a RemoteStore
    // whose informer cache missed) answers 422 "metadata.resourceVersion: must be specified for an
    // update", as a custom resource's status allows no unconditional update: it exists too.
    if (r.status == StoreStatus::Conflict || r.status == StoreStatus::Invalid) return std::nullopt;
    return WriteResult{WriteOutcome::Error, "reading " + key.display() + ": " +
                                                (r.ok() ? std::string("store wrote a probe") : r.message)};
}

}  // namespace

WriteResult writeTrainerStatus(Store& store, std::string_view ns, std::string_view name, const json::object& trainerStatus,
                               int maxAttempts) {
    auto key = trainJobKey(ns, name);
    for (int attempt = 0; attempt < maxAttempts; ++attempt) {
        auto read = store.get(key);
        if (read.failed()) return {WriteOutcome::Error, readFailureMessage(key, read.message)};
        if (read.notFound()) {
            if (auto absent = confirmAbsent(store, key)) return *absent;
            continue;
        }
        const json::object* current = &read.object;
        json::object next = *current;
        auto* status = next.if_contains("status");
        if (!status || !status->is_object()) status = &(next["status"] = json::object{});
        status->as_object()["trainerStatus"] = trainerStatus;
        if (auto message = invalidMessage(next, *current, name); !message.empty())
            return {WriteOutcome::Invalid, message};
        auto r = store.updateStatus(next);
        switch (r.status) {
            case StoreStatus::Ok: return {WriteOutcome::Written, {}};
            case StoreStatus::Conflict: continue;
            case StoreStatus::NotFound: return {WriteOutcome::NotFound, r.message};
            case StoreStatus::Invalid: return {WriteOutcome::Invalid, r.message};
            default: return {WriteOutcome::Error, r.message};
        }
    }
    return {WriteOutcome::Error, "status of " + key.display() + " kept changing: gave up after " +
                                     std::to_string(maxAttempts) + " conflicting writes"};
}

}  // namespace trainer::core::statusserver
