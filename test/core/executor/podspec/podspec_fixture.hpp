// Shared helpers of the podspec tests: JSON literals, cluster objects and a temporary directory.
#pragma once

#include "core/api/object_set.hpp"

#include <boost/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace podspec_test {

namespace json = boost::json;
namespace fs = std::filesystem;

inline json::object obj(std::string_view text) { return json::parse(text).as_object(); }

inline json::object configMap(const std::string& ns, const std::string& name, json::object data,
                              json::object binaryData = {}) {
    json::object o{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"namespace", ns}, {"name", name}}}};
    o["data"] = std::move(data);
    if (!binaryData.empty()) o["binaryData"] = std::move(binaryData);
    return o;
}

inline json::object secret(const std::string& ns, const std::string& name, json::object data) {
    json::object o{{"apiVersion", "v1"}, {"kind", "Secret"}, {"metadata", {{"namespace", ns}, {"name", name}}}};
    o["data"] = std::move(data);
    return o;
}

// A pod in namespace "team" whose spec is `spec` (JSON text).
inline json::object pod(std::string_view spec) {
    json::object p = obj(R"({"apiVersion":"v1","kind":"Pod","metadata":{"namespace":"team","name":"job-0-abc",
        "uid":"1234-uid","labels":{"app":"train","tier":"gpu"},
        "annotations":{"batch.kubernetes.io/job-completion-index":"3","note":"a \"quoted\"\nline"}}})");
    p["spec"] = json::parse(spec);
    return p;
}

// A fresh directory under the system temporary directory, removed with the fixture.
struct TempDir {
    fs::path path;
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "podspec-XXXXXX").string();
        path = ::mkdtemp(tmpl.data());
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

}  // namespace podspec_test
