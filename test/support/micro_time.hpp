// A Kubernetes MicroTime ("2024-05-01T12:00:00.123456Z", a Lease's acquireTime and renewTime) as
// microseconds since the epoch, so tests compare the times an object records, not how long
// they waited.
#pragma once

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

namespace trainer::test {

inline std::chrono::microseconds microTime(const boost::json::value& v) {
    BOOST_REQUIRE_MESSAGE(v.is_string(), "not a MicroTime: " << v);
    std::tm tm{};
    int micros = 0;
    const std::string text(v.as_string());
    BOOST_REQUIRE_MESSAGE(std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%6dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                                      &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &micros) == 7,
                          "not a MicroTime: " << text);
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return std::chrono::seconds(::timegm(&tm)) + std::chrono::microseconds(micros);
}

}  // namespace trainer::test
