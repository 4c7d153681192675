#include "core/apiserver/watch.hpp"

#include "core/apiserver/status.hpp"

#include <deque>

namespace trainer::core::apiserver {

namespace {

constexpr size_t kBatch = 500;

class WatchStream : public server::ResponseStream {
public:
    WatchStream(const Store& store, ApiResource resource, WatchOptions options)
        : store_(store), resource_(std::move(resource)), options_(std::move(options)),
          lastBookmark_(std::chrono::steady_clock::now()) {
        if (options_.resourceVersion) {
            revision_ = *options_.resourceVersion;
        } else {
            // The current state first (revision read before the list: nothing is missed).
            revision_ = store_.revision();
            for (auto& o : store_.list(resource_.apiVersion(), resource_.kind, options_.ns))
                if (matches(o)) initial_.push_back(std::move(o));
        }
    }

    server::StreamChunk poll() override {
        server::StreamChunk out;
        if (done_) return {"", true};
        while (!initial_.empty() && out.data.size() < (1u << 20)) {
            out.data += event("ADDED", initial_.front());
            initial_.pop_front();
        }
        if (!initial_.empty()) return out;
        if (revision_ < store_.compactedRevision()) {
            out.data += line("ERROR", expiredStatus(revision_, store_.compactedRevision() + 1));
            out.done = done_ = true;
            return out;
        }
        auto changes = store_.changesSince(revision_, kBatch);
        for (auto const& c : changes) {
            revision_ = c.revision;
            if (c.key.apiVersion != resource_.apiVersion() || c.key.kind != resource_.kind) continue;
            if (options_.ns && c.key.ns != *options_.ns) continue;
            if (!matches(c.object)) continue;
            out.data += event(std::string(toString(c.type)), c.object);
        }
        auto now = std::chrono::steady_clock::now();
        if (!out.data.empty()) lastBookmark_ = now;
        if (options_.bookmarks && out.data.empty() && now - lastBookmark_ >= options_.bookmarkInterval) {
            lastBookmark_ = now;
            out.data += line("BOOKMARK", json::object{{"kind", resource_.kind},
                                                      {"apiVersion", resource_.apiVersion()},
                                                      {"metadata", json::object{{"resourceVersion", std::to_string(revision_)}}}});
        }
        if (now >= options_.deadline) out.done = done_ = true;
        return out;
    }

private:
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
    ApiResource resource_;
    WatchOptions options_;
    std::deque<json::object> initial_;
    int64_t revision_ = 0;
    bool first_ = true;
    bool done_ = false;
    std::chrono::steady_clock::time_point lastBookmark_;
};

}  // namespace

json::object expiredStatus(int64_t requested, int64_t oldest) {
    ApiError e{Reason::Expired,
               "too old resource version: " + std::to_string(requested) + " (" + std::to_string(oldest) + ")", {}};
    return statusObject(e);
}

std::shared_ptr<server::ResponseStream> makeWatchStream(const Store& store, ApiResource resource, WatchOptions options) {
    return std::make_shared<WatchStream>(store, std::move(resource), std::move(options));
}

}  // namespace trainer::core::apiserver
