// The manager layers around the Updater; the contract is in field_manager_layers.hpp.
#include "core/apiserver/field_manager_layers.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace trainer::core::apiserver::smd {

namespace {

// stripMetaManager: identity and server-owned metadata are never owned.
const FieldSet& strippedFields() {
    static const FieldSet s = topLevelSet({{"apiVersion"},
                                           {"kind"},
                                           {"metadata"},
                                           {"metadata", "name"},
                                           {"metadata", "namespace"},
                                           {"metadata", "creationTimestamp"},
                                           {"metadata", "selfLink"},
                                           {"metadata", "uid"},
                                           {"metadata", "clusterName"},
                                           {"metadata", "generation"},
                                           {"metadata", "managedFields"},
                                           {"metadata", "resourceVersion"}});
    return s;
}

}  // namespace

void stripMeta(Managers& managers, const std::string& id) {
    auto it = managers.find(id);
    if (it == managers.end()) return;
    it->second.set = subtract(it->second.set, strippedFields());
    if (it->second.set.empty()) managers.erase(it);
}

void updateCore(const json::value& live, const json::value& newObj, Managers& managers, Entry writer,
                std::string_view time, const FieldSet& ignored, const Shapes& sh) {
    Comparison c;
    updateManagers(live, newObj, managers, "current-operation", true, ignored, sh, &c);
    FieldSet took = subtract(recursiveSubtract(unite(c.modified, c.added), ignored), strippedFields());
    if (took.empty()) return;
    const std::string id = identifier(writer);
    if (auto it = managers.find(id); it != managers.end()) took = unite(took, it->second.set);
    writer.set = std::move(took);
    writer.time = std::string(time);
    managers[id] = std::move(writer);
}

void capUpdateManagers(Managers& managers, std::size_t max) {
    std::vector<std::string> updaters;
    for (auto const& [id, e] : managers)
        if (e.operation != "Apply") updaters.push_back(id);
    if (updaters.size() <= max) return;
    std::sort(updaters.begin(), updaters.end(), [&](auto const& a, auto const& b) {
        return std::make_pair(unixSeconds(managers[a].time), a) < std::make_pair(unixSeconds(managers[b].time), b);
    });
    std::map<std::string, std::string> firstOfVersion;
    std::size_t length = updaters.size();
    for (std::size_t i = 0; i < updaters.size() && length > max; ++i) {
        Entry e = managers.at(updaters[i]);
        Entry bucket{"ancient-changes", "Update", e.apiVersion, "", e.time, {}};
        const std::string bucketId = identifier(bucket);
        auto first = firstOfVersion.find(e.apiVersion);
        if (first == firstOfVersion.end()) {
            firstOfVersion.emplace(e.apiVersion, updaters[i]);
            continue;
        }
        if (!managers.count(bucketId)) {
            bucket.set = managers.at(first->second).set;
            managers.erase(first->second);
        } else bucket.set = managers.at(bucketId).set;
        bucket.set = unite(e.set, bucket.set);
        managers.erase(updaters[i]);
        managers[bucketId] = std::move(bucket);
        --length;
    }
}

ApplyRun applyTracked(const json::value& live, const json::value& applied, Managers managers, const Entry& applier,
                      bool force, const FieldSet& ignored, std::string_view time, const Shapes& sh) {
    if (managers.empty())
        updateCore(json::object(), live, managers, Entry{"before-first-apply", "Update", applier.apiVersion,
                                                          applier.subresource, std::nullopt, {}},
                   time, ignored, sh);
    return smdApply(live, applied, std::move(managers), applier, force, ignored, sh);
}

}  // namespace trainer::core::apiserver::smd
