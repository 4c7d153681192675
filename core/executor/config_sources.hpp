// The key -> bytes content of the ConfigMaps and Secrets a pod reads (env, envFrom, volumes),
// fetched from the cluster with the API server's not-found messages.
#pragma once

#include "core/api/object_set.hpp"

#include <map>
#include <optional>
#include <string>

namespace trainer::core::executor {

enum class SourceKind { ConfigMap, Secret };

// "configmap" / "secret" (the API resource, as NotFound messages name it).
std::string_view resourceName(SourceKind kind);
// "ConfigMap" / "Secret".
std::string_view kindName(SourceKind kind);

// A ConfigMap's or Secret's entries, or why there are none: notFound (message
// `configmap "name" not found`, which `optional` references tolerate) or a malformed object.
struct SourceData {
    std::optional<std::map<std::string, std::string>> entries;
    bool notFound = false;
    std::string error;
};

// Reads `ns/name`: a ConfigMap's data then binaryData (base64); a Secret's data (base64) with
// stringData merged over it (what the API server stores for a write carrying stringData).
SourceData readSource(const ClusterReader& cluster, SourceKind kind, const std::string& ns, const std::string& name);

// readSource once per (kind, name) for one pod, so every reader sees the same snapshot.
class SourceCache {
public:
    SourceCache(const ClusterReader& cluster, std::string ns) : cluster_(cluster), ns_(std::move(ns)) {}
    const SourceData& get(SourceKind kind, const std::string& name);
    const std::string& ns() const { return ns_; }

private:
    const ClusterReader& cluster_;
    std::string ns_;
    std::map<std::pair<SourceKind, std::string>, SourceData> cache_;
};

}  // namespace trainer::core::executor
