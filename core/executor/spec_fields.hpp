// Reading a pod spec held as JSON without trusting its shape: every read names the field path
// (`spec.containers[0].env[2].valueFrom`) so a malformed spec gives a message, never a crash.
#pragma once

#include <boost/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::executor {

namespace json = boost::json;

// "<path>: Invalid value: <value as JSON>: <detail>", as the API server words a field error.
std::string invalidValue(std::string_view path, const json::value& value, std::string_view detail);
// "<path>: Required value[: <detail>]".
std::string requiredValue(std::string_view path, std::string_view detail = {});
// "<path>[<i>]".
std::string indexPath(std::string_view path, size_t i);

// Typed reads of the members of one object at `path`. A member that is absent or null is "not
// set"; one of another type is "not set" too and records an error in the shared `error` (the
// first error wins, so callers check it once after a group of reads).
class FieldReader {
public:
    FieldReader(const json::object& object, std::string path, std::string& error)
        : object_(object), path_(std::move(path)), error_(error) {}

    const json::object* object(std::string_view key) const;
    const json::array* array(std::string_view key) const;
    std::optional<std::string> string(std::string_view key) const;
    std::optional<bool> boolean(std::string_view key) const;
    // An integer (JSON int, or a double holding an integral value).
    std::optional<int64_t> integer(std::string_view key) const;
    // A member of any type (nullptr when absent or null).
    const json::value* value(std::string_view key) const;
    // The reader of a member object (an empty object when not set).
    FieldReader child(std::string_view key) const;
    // Readers of the elements of member array `key`; a non-object element fails and ends the list.
    std::vector<FieldReader> elements(std::string_view key) const;

    std::string path(std::string_view key) const { return path_ + "." + std::string(key); }
    const std::string& path() const { return path_; }
    const json::object& raw() const { return object_; }
    bool ok() const { return error_.empty(); }
    void fail(std::string message) const {
        if (error_.empty()) error_ = std::move(message);
    }

private:
    const json::object& object_;
    std::string path_;
    std::string& error_;
};

// Element `i` of an array as an object; nullptr and an error naming `<path>[i]` otherwise.
const json::object* elementObject(const json::array& a, size_t i, std::string_view path, std::string& error);

// The pod's metadata.namespace ("default" when unset).
std::string podNamespace(const json::object& pod);

// Where `container` sits in `pod`: "spec.containers[i]" or "spec.initContainers[i]" (matched by
// address, then by name); `container "<name>"` when it is not found there.
std::string containerFieldPath(const json::object& pod, const json::object& container);

}  // namespace trainer::core::executor
