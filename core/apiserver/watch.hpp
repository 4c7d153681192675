// A watch (`?watch=true`): the store's change feed for one resource, filtered by namespace and
// selectors, streamed as newline-delimited metav1.WatchEvent JSON, as the API server streams it.
#pragma once

#include "core/apiserver/resources.hpp"
#include "core/apiserver/selectors.hpp"
#include "core/server/http.hpp"
#include "core/store/store.hpp"

#include <chrono>
#include <functional>
#include <optional>

namespace trainer::core::apiserver {

struct WatchOptions {
    std::optional<std::string> ns;     // nullopt: every namespace
    std::optional<LabelSelector> labels;
    std::optional<FieldSelector> fields;
    // The version to start after; nullopt ("" or "0"): the current objects first, as ADDED events.
    std::optional<int64_t> resourceVersion;
    bool bookmarks = false;
    std::chrono::milliseconds bookmarkInterval{1000};
    std::chrono::steady_clock::time_point deadline;
    // The time of bookmarks and the deadline (the time seam tests move by hand); steady_clock when empty.
    std::function<std::chrono::steady_clock::time_point()> now;
    // Turns an event's object into what the client asked for (a Table row), or identity.
    std::function<json::value(const json::object&, bool first)> render;
};

// The stream; once the feed is compacted past its position it sends an ERROR event with a 410
// Expired Status and ends, so clients relist; when the feed cannot be read it ends with an ERROR
// event carrying an InternalError Status. nullptr with `error` set when the store could not be
// read to start it (the caller answers 500).
std::shared_ptr<server::ResponseStream> makeWatchStream(const Store& store, ResourceRegistry::Resource resource,
                                                        WatchOptions options, std::string& error);

// The Status a watch from a compacted version ends with: `too old resource version: <rv> (<oldest>)`.
json::object expiredStatus(int64_t requested, int64_t oldest);

}  // namespace trainer::core::apiserver
