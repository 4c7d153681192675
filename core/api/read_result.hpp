// What a read of cluster state answered: the object, its absence, or a failure to read (a busy
// or corrupt store, an I/O error, an unreachable API server). A failure is never absence: a
// caller that would create, rebuild, regenerate or delete something because an object is missing
// must act only on NotFound and retry on Error. Neither type converts to bool, so no caller can
// read "not there" into "could not tell".
#pragma once

#include <boost/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::core {

enum class ReadStatus { Found, NotFound, Error };

// "Found", "NotFound", "Error" for logs.
inline std::string_view toString(ReadStatus s) {
    switch (s) {
    case ReadStatus::Found: return "Found";
    case ReadStatus::NotFound: return "NotFound";
    case ReadStatus::Error: return "Error";
    }
    return "Error";
}

// One point read. `object` is the object when Found (empty otherwise); `message` says why the
// read failed when Error (empty otherwise).
struct ReadResult {
    ReadStatus status = ReadStatus::NotFound;
    boost::json::object object;
    std::string message;

    bool found() const { return status == ReadStatus::Found; }
    bool notFound() const { return status == ReadStatus::NotFound; }
    bool failed() const { return status == ReadStatus::Error; }

    static ReadResult of(boost::json::object o) { return ReadResult{ReadStatus::Found, std::move(o), {}}; }
    static ReadResult absent() { return ReadResult{}; }
    static ReadResult error(std::string message) { return ReadResult{ReadStatus::Error, {}, std::move(message)}; }
};

// One shared NotFound for every absent key: what a reader's share() answers for absence
// (ClusterReader::share, object_set.hpp), never remembered per key.
inline std::shared_ptr<const ReadResult> sharedAbsent() {
    static const auto absent = std::make_shared<const ReadResult>(ReadResult::absent());
    return absent;
}

// A read that answers a value (a list, a revision, a batch of changes) or why it could not:
// `error` is set exactly when the read failed, and then `value` is the default (an empty list,
// revision 0) and means nothing.
template <class T>
struct ReadValue {
    T value{};
    std::optional<std::string> error;

    bool ok() const { return !error.has_value(); }

    static ReadValue of(T v) { return ReadValue{std::move(v), std::nullopt}; }
    static ReadValue failure(std::string message) { return ReadValue{T{}, std::move(message)}; }
};

// Every object of one kind (ClusterReader::list, Store::listAll), or why they could not be read.
using ListResult = ReadValue<std::vector<boost::json::object>>;

}  // namespace trainer::core
