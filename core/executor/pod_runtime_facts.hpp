// What the kubelet knows about a running pod beyond its spec: the addresses it assigned, the
// node it runs on and the node's allocatable resources (the downward API reads them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trainer::core::executor {

struct PodRuntimeFacts {
    std::string podIP;
    std::string hostIP;
    std::string nodeName;            // used when the pod's spec.nodeName is empty
    std::vector<std::string> podIPs; // status.podIPs; empty means {podIP}
    // Node allocatable, the value of limits.cpu / limits.memory for a container without that
    // limit (pkg/kubelet/kubelet_resources.go defaultPodLimitsForDownwardAPI); 0 = unknown.
    int64_t allocatableMilliCpu = 0;
    int64_t allocatableMemoryBytes = 0;
};

}  // namespace trainer::core::executor
