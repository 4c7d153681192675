// A set of Kubernetes objects keyed by (apiVersion, kind, namespace, name): the cluster state
// that render reads from files and the controller reads from the store.
#pragma once

#include "core/api/read_result.hpp"
#include "core/json/io.hpp"

#include <boost/json.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace trainer::core {

namespace json = boost::json;

struct ObjectKey {
    std::string apiVersion;
    std::string kind;
    std::string ns;
    std::string name;
    auto operator<=>(const ObjectKey&) const = default;
    // "Kind ns/name" or "Kind name" for messages, each part cut by quoteForError (a 10 MB name
    // is echoed as its first kMaxEchoBytes bytes and its length).
    std::string display() const {
        return quoteForError(kind) + " " + (ns.empty() ? quoteForError(name) : quoteForError(ns) + "/" + quoteForError(name));
    }
};

// The identity of an object (missing members become empty strings).
inline ObjectKey keyOf(const json::object& o) {
    auto str = [](const json::object& x, std::string_view k) -> std::string {
        auto it = x.find(k);
        return (it != x.end() && it->value().is_string()) ? std::string(it->value().as_string()) : std::string();
    };
    ObjectKey k{str(o, "apiVersion"), str(o, "kind"), {}, {}};
    if (auto it = o.find("metadata"); it != o.end() && it->value().is_object()) {
        k.ns = str(it->value().as_object(), "namespace");
        k.name = str(it->value().as_object(), "name");
    }
    return k;
}

// metadata.resourceVersion, empty when missing.
inline std::string resourceVersionOf(const json::object& o) {
    auto* m = o.if_contains("metadata");
    auto* rv = m && m->is_object() ? m->get_object().if_contains("resourceVersion") : nullptr;
    return rv && rv->is_string() ? std::string(rv->get_string()) : std::string();
}

// "cluster read of Kind ns/name failed: <why>": how a failed read of `key` is reported.
inline std::string readFailureMessage(const ObjectKey& key, std::string_view why) {
    return "cluster read of " + key.display() + " failed: " + std::string(why);
}

// Read-only cluster state lookup; implemented by ObjectSet (render) and the store (run).
// Every read says Found, NotFound or Error (read_result.hpp): a reader that could not read
// answers Error with why, never "absent" or an empty list.
class ClusterReader {
public:
    virtual ~ClusterReader() = default;
    virtual ReadResult get(const ObjectKey& key) const = 0;
    // The same read, shared and immutable: a reader that keeps its answers (ReadMemo, ObjectSet)
    // hands out the one it keeps instead of a copy. By default get()'s answer, moved. A reader
    // whose get() changes what an inner reader answers changes share() alike (read_error_latch.hpp).
    virtual std::shared_ptr<const ReadResult> share(const ObjectKey& key) const {
        return std::make_shared<const ReadResult>(get(key));
    }
    // Every object of one apiVersion+kind, optionally restricted to a namespace.
    virtual ListResult list(const std::string& apiVersion, const std::string& kind,
                            const std::optional<std::string>& ns = std::nullopt) const = 0;
};

class ObjectSet : public ClusterReader {
public:
    ObjectSet() = default;
    // Copies and moves take the objects; what share() handed out stays with its holders.
    ObjectSet(const ObjectSet& o) : objects_(o.objects_) {}
    ObjectSet(ObjectSet&& o) noexcept : objects_(std::move(o.objects_)) {}
    ObjectSet& operator=(const ObjectSet& o) { return *this = ObjectSet(o); }
    ObjectSet& operator=(ObjectSet&& o) noexcept {
        objects_ = std::move(o.objects_);
        std::lock_guard lock(sharedMu_);
        shared_.clear();
        return *this;
    }
    void put(json::object o) {
        auto k = keyOf(o);
        {
            std::lock_guard lock(sharedMu_);
            shared_.erase(k);
        }
        objects_[std::move(k)] = std::move(o);
    }
    ReadResult get(const ObjectKey& key) const override {
        auto it = objects_.find(key);
        if (it == objects_.end()) return ReadResult::absent();
        return ReadResult::of(it->second);
    }
    // One copy per object however often it is shared (render reads one runtime per TrainJob);
    // an absent key's answer is one for all, never remembered per key.
    std::shared_ptr<const ReadResult> share(const ObjectKey& key) const override {
        std::lock_guard lock(sharedMu_);
        if (auto it = shared_.find(key); it != shared_.end()) return it->second;
        auto it = objects_.find(key);
        if (it == objects_.end()) return sharedAbsent();
        return shared_[key] = std::make_shared<const ReadResult>(ReadResult::of(it->second));
    }
    const json::object* find(const ObjectKey& key) const {
        auto it = objects_.find(key);
        return it == objects_.end() ? nullptr : &it->second;
    }
    ListResult list(const std::string& apiVersion, const std::string& kind,
                    const std::optional<std::string>& ns = std::nullopt) const override {
        std::vector<json::object> out;
        for (auto const& [k, o] : objects_)
            if (k.apiVersion == apiVersion && k.kind == kind && (!ns || k.ns == *ns)) out.push_back(o);
        return ListResult::of(std::move(out));
    }
    const std::map<ObjectKey, json::object>& all() const { return objects_; }

private:
    std::map<ObjectKey, json::object> objects_;
    mutable std::mutex sharedMu_;
    mutable std::map<ObjectKey, std::shared_ptr<const ReadResult>> shared_;  // what share() handed out
};

}  // namespace trainer::core
