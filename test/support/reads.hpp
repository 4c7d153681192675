// Test shorthands over the store's read results (core/api/read_result.hpp) for tests that expect
// every read to work: a read that failed throws, which fails the test case with the message.
#pragma once

#include "core/api/read_result.hpp"

#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>

namespace trainer::core {
// Printable for BOOST_TEST messages.
inline std::ostream& operator<<(std::ostream& os, ReadStatus s) { return os << toString(s); }
}  // namespace trainer::core

namespace trainer::test {

// The object a read found, nullopt when it answered NotFound.
inline std::optional<boost::json::object> found(const core::ReadResult& r) {
    if (r.failed()) throw std::runtime_error("read failed: " + r.message);
    if (r.notFound()) return std::nullopt;
    return r.object;
}

// The value of a list, revision or change-feed read.
template <class T>
T readOk(core::ReadValue<T> r) {
    if (!r.ok()) throw std::runtime_error("read failed: " + *r.error);
    return std::move(r.value);
}

}  // namespace trainer::test
