// What the fuzz targets share: reporting a finding (an abort that libFuzzer, or the replay test,
// records together with the input), the repository's files as fixed state, and the JSON
// comparison the round-trip checks use. See test/fuzz/README.md.
#pragma once

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>

namespace trainer::core::fuzz {

namespace json = boost::json;

// A property of the code under test does not hold: print what and abort (a crash for libFuzzer).
[[noreturn]] inline void finding(std::string_view what, std::string_view detail = {}) {
    std::fprintf(stderr, "fuzz finding: %.*s\n", static_cast<int>(what.size()), what.data());
    if (!detail.empty()) std::fprintf(stderr, "%.*s\n", static_cast<int>(std::min<std::size_t>(detail.size(), 1 << 20)), detail.data());
    std::abort();
}

inline void require(bool ok, std::string_view what, std::string_view detail = {}) {
    if (!ok) finding(what, detail);
}

// A file of this checkout (fixed state the targets start from); a missing file aborts, since a
// target without its state would fuzz nothing.
inline std::string repoFile(std::string_view relative) {
    std::string path = std::string(TRAINER_SOURCE_DIR) + "/" + std::string(relative);
    std::ifstream in(path, std::ios::binary);
    if (!in) finding("cannot read fixture", path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// JSON equality where numbers compare by value whatever their kind (1 == 1.0 == 1u): what a
// reader of the text sees, since JSON and YAML text do not keep the C++ number kind. Doubles compare
// exactly: every reader is correctly rounded, so the shortest text of a double reads back as it.
inline bool sameJson(const json::value& a, const json::value& b) {
    auto number = [](const json::value& v) { return v.is_int64() || v.is_uint64() || v.is_double(); };
    if (number(a) && number(b)) {
        if (!(a.is_double() || b.is_double())) return a == b;
        return a.to_number<double>() == b.to_number<double>();
    }
    if (a.kind() != b.kind()) return false;
    if (a.is_object()) {
        auto const& x = a.get_object();
        auto const& y = b.get_object();
        if (x.size() != y.size()) return false;
        for (auto const& kv : x) {
            auto const* other = y.if_contains(kv.key());
            if (!other || !sameJson(kv.value(), *other)) return false;
        }
        return true;
    }
    if (a.is_array()) {
        auto const& x = a.get_array();
        auto const& y = b.get_array();
        if (x.size() != y.size()) return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!sameJson(x[i], y[i])) return false;
        return true;
    }
    return a == b;
}

}  // namespace trainer::core::fuzz
