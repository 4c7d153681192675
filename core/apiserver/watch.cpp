#include "core/apiserver/watch.hpp"

#include "core/apiserver/status.hpp"

#include <deque>
#include <set>

namespace trainer::core::apiserver {

namespace {

constexpr size_t kBatch = 500;

class WatchStream : public server::ResponseStream {
public:
    WatchStream(const Store& store, ResourceRegistry::Resource resource, WatchOptions options)
        : store_(store), shared_(std::move(resource)), resource_(*shared_), options_(std::move(options)),
          lastBookmark_(now()) {
        filtered_ = options_.labels || options_.fields;
        if (options_.resourceVersion) {
            revision_ = *options_.resourceVersion;
            // What matches now stands for what matched then: objects leaving the selector are DELETED.
            if (filtered_) {
                auto listed = store_.list(resource_.apiVersion(), resource_.kind, options_.ns);
                if (!listed.ok()) {
                    startError_ = *listed.error;
                    return;
                }
                for (auto& o : listed.value)
                    if (matches(o)) matched_.insert(keyOf(o));
            }
        } else {
            // The current state first (revision read before the list: nothing is missed).
            auto revision = store_.revision();
            auto listed = revision.ok() ? store_.list(resource_.apiVersion(), resource_.kind, options_.ns)
                                        : ListResult::failure(*revision.error);
            if (!listed.ok()) {
                startError_ = *listed.error;
                return;
            }
            revision_ = revision.value;
            for (auto& o : listed.value)
                if (matches(o)) {
                    if (filtered_) matched_.insert(keyOf(o));
                    initial_.push_back(std::move(o));
                }
        }
    }

    // Why the stream could not start (a store read failed), or nullopt.
    const std::optional<std::string>& startError() const { return startError_; }

    // The change feed is polled: 20 ms between empty polls bounds the latency of an event written
    // by another process; this process's commits wake the stream at once (Store::onCommit).
    std::chrono::milliseconds idle() const override { return std::chrono::milliseconds(20); }
    void setWaker(std::function<void()> wake) override { commits_ = store_.onCommit(std::move(wake)); }

    server::StreamChunk poll() override {
        server::StreamChunk out;
        if (done_) return {"", true};
        while (!initial_.empty() && out.data.size() < (1u << 20)) {
            out.data += event("ADDED", initial_.front());
            initial_.pop_front();
        }
        if (!initial_.empty()) return out;
        // A feed that cannot be read ends the watch with an InternalError event (clients watch
        // again from their last version); an empty answer would look like "nothing happened".
        auto compacted = store_.compactedRevision();
        auto changes = compacted.ok() ? store_.changesSince(revision_, kBatch)
                                      : ReadValue<std::vector<Change>>::failure(*compacted.error);
        if (!changes.ok()) {
            out.data += line("ERROR", statusObject(internalError(*changes.error)));
            out.done = done_ = true;
            return out;
        }
        if (revision_ < compacted.value) {
            out.data += line("ERROR", expiredStatus(revision_, compacted.value + 1));
            out.done = done_ = true;
            return out;
        }
        for (auto const& c : changes.value) {
            revision_ = c.revision;
            if (c.key.apiVersion != resource_.apiVersion() || c.key.kind != resource_.kind) continue;
            if (options_.ns && c.key.ns != *options_.ns) continue;
            if (auto type = eventType(c); !type.empty()) out.data += event(type, c.object);
        }
        auto at = now();
        if (!out.data.empty()) lastBookmark_ = at;
        if (options_.bookmarks && out.data.empty() && at - lastBookmark_ >= options_.bookmarkInterval) {
            lastBookmark_ = at;
            out.data += line("BOOKMARK", json::object{{"kind", resource_.kind},
                                                      {"apiVersion", resource_.apiVersion()},
                                                      {"metadata", json::object{{"resourceVersion", std::to_string(revision_)}}}});
        }
        if (at >= options_.deadline) out.done = done_ = true;
        return out;
    }

private:
    std::chrono::steady_clock::time_point now() const {
        return options_.now ? options_.now() : std::chrono::steady_clock::now();
    }
    // The event a change is for this watch, or "" for none: with selectors, an object entering
    // them is ADDED and one leaving them DELETED, as the API server's watch cache reports it.
    std::string eventType(const Change& c) {
        std::string type(toString(c.type));
        if (!filtered_) return type;
        bool was = matched_.count(c.key) > 0;
        bool now = c.type != ChangeType::Deleted && matches(c.object);
        if (now) matched_.insert(c.key);
        else matched_.erase(c.key);
        if (c.type == ChangeType::Deleted) return was ? type : "";
        if (now) return was ? type : "ADDED";
        return was ? "DELETED" : "";
    }
    bool matches(const json::object& o) const {
        static const json::object empty;
        auto* m = o.if_contains("metadata");
        auto* labels = m && m->is_object() ? m->as_object().if_contains("labels") : nullptr;
        if (options_.labels && !options_.labels->matches(labels && labels->is_object() ? labels->as_object() : empty))
            return false;
        return !options_.fields || options_.fields->matches(o);
    }
    std::string event(const std::string& type, const json::object& o) {
        json::value v = options_.render ? options_.render(o, first_) : json::value(o);
        first_ = false;
        return line(type, std::move(v));
    }
    static std::string line(std::string_view type, json::value object) {
        return json::serialize(json::object{{"type", type}, {"object", std::move(object)}}) + "\n";
    }

    const Store& store_;
    ChangeSubscription commits_;  // wakes the server's idle wait (setWaker)
    ResourceRegistry::Resource shared_;  // the registry's, kept for the stream's life
    const ApiResource& resource_;
    WatchOptions options_;
    std::deque<json::object> initial_;
    bool filtered_ = false;
    std::set<ObjectKey> matched_;
    int64_t revision_ = 0;
    bool first_ = true;
    bool done_ = false;
    std::optional<std::string> startError_;
    std::chrono::steady_clock::time_point lastBookmark_;
};

}  // namespace

json::object expiredStatus(int64_t requested, int64_t oldest) {
    ApiError e{Reason::Expired,
               "too old resource version: " + std::to_string(requested) + " (" + std::to_string(oldest) + ")", {}};
    return statusObject(e);
}

std::shared_ptr<server::ResponseStream> makeWatchStream(const Store& store, ResourceRegistry::Resource resource,
                                                        WatchOptions options, std::string& error) {
    auto stream = std::make_shared<WatchStream>(store, std::move(resource), std::move(options));
    if (stream->startError()) {
        error = *stream->startError();
        return nullptr;
    }
    return stream;
}

}  // namespace trainer::core::apiserver
