// Helpers shared by the store tests: temp dirs, object builders, both backends.
#pragma once

#include "core/store/memory_store.hpp"
#include "core/store/sqlite_store.hpp"
#include "test/support/reads.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>

namespace trainer::core {
// Printable values for BOOST_TEST messages.
inline std::ostream& operator<<(std::ostream& os, StoreStatus s) { return os << toString(s); }
inline std::ostream& operator<<(std::ostream& os, ChangeType t) { return os << toString(t); }
inline std::ostream& operator<<(std::ostream& os, ApplyOutcome o) { return os << toString(o); }
}  // namespace trainer::core

namespace trainer::core::test {

namespace json = boost::json;

using trainer::test::found;
using trainer::test::readOk;

// A fresh directory under /tmp, removed with everything in it.
class TempDir {
public:
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "store-test-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

// 2024-05-01T12:00:00Z: the fixed clock of the tests.
inline std::chrono::system_clock::time_point fixedNow() {
    using namespace std::chrono;
    return sys_days{year{2024} / 5 / 1} + hours{12};
}

inline StoreOptions fixedClockOptions() {
    StoreOptions o;
    o.clock = fixedNow;
    return o;
}

inline json::object parseObject(std::string_view text) { return json::parse(text).as_object(); }

inline json::object trainJob(const std::string& name, const std::string& ns = "default") {
    return json::object{{"apiVersion", "trainer.kubeflow.org/v1alpha1"},
                        {"kind", "TrainJob"},
                        {"metadata", {{"name", name}, {"namespace", ns}}},
                        {"spec", {{"runtimeRef", {{"name", "torch-distributed"}}}}}};
}

inline json::object configMap(const std::string& name, const std::string& ns = "default") {
    return json::object{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", {{"name", name}, {"namespace", ns}}},
                        {"data", {{"k", "v"}}}};
}

// `obj` with an ownerReference to `owner` (which must carry metadata.uid).
inline json::object ownedBy(json::object obj, const json::object& owner) {
    auto const& om = owner.at("metadata").as_object();
    json::array refs;
    if (auto const* r = obj["metadata"].as_object().if_contains("ownerReferences")) refs = r->as_array();
    refs.push_back(json::object{{"apiVersion", owner.at("apiVersion")},
                                {"kind", owner.at("kind")},
                                {"name", om.at("name")},
                                {"uid", om.at("uid")},
                                {"controller", refs.empty()}});
    obj["metadata"].as_object()["ownerReferences"] = std::move(refs);
    return obj;
}

inline std::string meta(const json::object& o, std::string_view k) {
    auto const& v = o.at("metadata").as_object().at(k);
    return v.is_string() ? std::string(v.as_string()) : json::serialize(v);
}

// Backends for BOOST_AUTO_TEST_CASE_TEMPLATE: every semantic test runs on both.
struct MemoryBackend {
    std::unique_ptr<Store> make() { return std::make_unique<MemoryStore>(fixedClockOptions()); }
};
struct SqliteBackend {
    TempDir dir;
    int n = 0;
    std::unique_ptr<Store> make() {
        SqliteStoreOptions o;
        o.store = fixedClockOptions();
        auto r = SqliteStore::open(dir.file("store" + std::to_string(n++) + ".db"), o);
        if (!r.store) throw std::runtime_error(r.error);
        return std::move(r.store);
    }
};

}  // namespace trainer::core::test
