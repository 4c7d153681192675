#include "core/controller/events.hpp"

#include "core/server/sha256.hpp"

namespace trainer::core::controller {

namespace {
std::string str(const json::object* o, std::string_view k) {
    auto* v = o ? o->if_contains(k) : nullptr;
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// 16 hex digits derived from what makes two events "the same" (the correlator's key).
std::string eventSuffix(const std::string& seed) {
    const server::Sha256Digest md = server::sha256(seed);
    std::string suffix;
    server::appendHex(suffix, md.data(), 8);
    return suffix;
}
}  // namespace

std::string truncateEventNote(std::string_view note) {
    if (note.size() <= kMaxEventNoteLength) return std::string(note);
    return std::string(note.substr(0, kMaxEventNoteLength)) + " ...";
}

EventRecorder::EventRecorder(Store& store, const Clock& clock, std::string component)
    : store_(store), clock_(clock), component_(std::move(component)) {}

std::string EventRecorder::record(const json::object& involved, std::string_view type, std::string_view reason,
                                  std::string_view action, std::string_view note) {
    auto key = keyOf(involved);
    const json::object* md = involved.if_contains("metadata") && involved.at("metadata").is_object()
                                 ? &involved.at("metadata").get_object()
                                 : nullptr;
    std::string message = truncateEventNote(note);
    std::string name = key.name + "." + eventSuffix(str(md, "uid") + "\n" + std::string(type) + "\n" +
                                                    std::string(reason) + "\n" + message);
    std::string ns = key.ns.empty() ? "default" : key.ns;
    std::string now = formatRfc3339(clock_.now());
    // A lost race with another writer just retries with the fresh count.
    for (int attempt = 0; attempt < 3; ++attempt) {
        ObjectKey eventKey{"v1", "Event", ns, name};
        auto existing = store_.get(eventKey);
        if (existing.failed()) return readFailureMessage(eventKey, existing.message);
        if (existing.found()) {
            json::object ev = std::move(existing.object);
            int64_t count = ev.if_contains("count") && ev.at("count").is_int64() ? ev.at("count").get_int64() : 1;
            ev["count"] = count + 1;
            ev["lastTimestamp"] = now;
            auto r = store_.update(ev);
            if (r.status == StoreStatus::Conflict) continue;
            return r.ok() ? "" : r.message;
        }
        json::object ev{
            {"apiVersion", "v1"},
            {"kind", "Event"},
            {"metadata", json::object{{"name", name}, {"namespace", ns}}},
            {"involvedObject", json::object{{"apiVersion", key.apiVersion},
                                            {"kind", key.kind},
                                            {"name", key.name},
                                            {"namespace", key.ns},
                                            {"uid", str(md, "uid")},
                                            {"resourceVersion", str(md, "resourceVersion")}}},
            {"reason", reason},
            {"message", message},
            {"type", type},
            {"action", action},
            {"source", json::object{{"component", component_}}},
            {"reportingComponent", component_},
            {"reportingInstance", component_},
            {"firstTimestamp", now},
            {"lastTimestamp", now},
            {"count", 1},
        };
        auto r = store_.create(ev);
        if (r.status == StoreStatus::AlreadyExists) continue;
        return r.ok() ? "" : r.message;
    }
    return "event " + ns + "/" + name + ": too many conflicting writers";
}

}  // namespace trainer::core::controller
