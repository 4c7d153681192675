// The downward API: pod fields (fieldRef) and container resources (resourceFieldRef) as the
// strings the kubelet puts in env vars and downwardAPI volume files.
#pragma once

#include "core/executor/pod_runtime_facts.hpp"
#include "core/executor/spec_fields.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace trainer::core::executor {

// The value of fieldRef {apiVersion, fieldPath} (pkg/kubelet/kubelet_pods.go
// podFieldSelectorRuntimeValue, pkg/apis/core/pods/helpers.go ConvertDownwardAPIFieldLabel,
// pkg/fieldpath/fieldpath.go ExtractFieldPathAsString): metadata.name, .namespace, .uid,
// .labels, .annotations (whole maps as sorted `k="v"` lines) and .labels['k'] / .annotations['k']
// (empty when the key is absent); with `runtimeFields` (env vars) also spec.nodeName,
// spec.serviceAccountName, status.hostIP(s), status.podIP(s). nullopt with the kubelet's message
// in `error` otherwise (e.g. "field label not supported: spec.foo").
std::optional<std::string> podFieldValue(const json::object& pod, std::string_view apiVersion, std::string_view fieldPath,
                                         const PodRuntimeFacts& facts, bool runtimeFields, std::string& error);

// The value of resourceFieldRef {containerName, resource, divisor} read by `selector` for
// `container` (or the pod's container named containerName): limits|requests . cpu (ceil of
// milli-cores / divisor's milli-value) or memory, ephemeral-storage, hugepages-<size> (ceil of
// bytes / divisor). A missing cpu/memory limit is the node's allocatable (facts); a missing
// request is the limit set in the spec (API defaulting), else 0. Divisor defaults to 1.
std::optional<std::string> resourceFieldValue(const json::object& pod, const json::object* container,
                                              const FieldReader& selector, const PodRuntimeFacts& facts);

// Go's %q of a string (strconv.Quote): double quotes, backslash escapes for quotes, backslashes
// and control bytes.
std::string goQuote(std::string_view s);

}  // namespace trainer::core::executor
