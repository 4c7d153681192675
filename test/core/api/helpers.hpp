// Shared fixtures for the core/api tests.
#pragma once

#include "core/api/errors.hpp"
#include "core/json/io.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace trainer::core::testing {

inline json::object parseYamlObject(const std::string& yaml) {
    std::vector<json::value> docs;
    std::string error;
    BOOST_REQUIRE_MESSAGE(parseYaml(yaml, docs, error), error);
    BOOST_REQUIRE_EQUAL(docs.size(), 1u);
    return docs[0].as_object();
}

inline json::value readJsonFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return json::parse(ss.str());
}

// Sets a value at a dotted path ("spec.trainer.numNodes"), creating objects on the way;
// a null value removes the member.
inline void setPath(json::object& o, const std::string& path, const json::value& v) {
    json::object* cur = &o;
    std::size_t start = 0;
    while (true) {
        auto dot = path.find('.', start);
        std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (dot == std::string::npos) {
            if (v.is_null()) cur->erase(key);
            else (*cur)[key] = v;
            return;
        }
        auto& next = (*cur)[key];
        if (!next.is_object()) next = json::object();
        cur = &next.as_object();
        start = dot + 1;
    }
}

inline std::string describe(const Diagnostics& d) {
    std::string s;
    for (auto const& e : d.errors) s += formatError(e) + "\n";
    for (auto const& w : d.warnings) s += formatWarning(w) + "\n";
    return s;
}

// True when some error sits at `path` and its message contains `part`.
inline bool hasError(const Diagnostics& d, const std::string& path, const std::string& part) {
    for (auto const& e : d.errors)
        if (e.path == path && e.message.find(part) != std::string::npos) return true;
    return false;
}

}  // namespace trainer::core::testing
