// The pods/log subresource (GET /api/v1/namespaces/{ns}/pods/{name}/log): a container's output
// from the local executor's log files, as text/plain, streamed with `follow` until the container
// instance ends or the client goes away. Query parameters are corev1.PodLogOptions: container,
// follow, previous, tailLines, limitBytes; timestamps=true, sinceSeconds and sinceTime are
// refused with 400 (the files carry no per-line times). Errors are the kube-apiserver's:
// 404 `pods "x" not found`, 400 for the container choice and the kubelet's
// `container "c" in pod "p" is waiting to start: <reason>`, 422 for invalid options
// (https://github.com/kubernetes/kubernetes/blob/v1.32.0/pkg/registry/core/pod/rest/log.go).
#pragma once

#include "core/apiserver/api_server.hpp"
#include "core/apiserver/request_info.hpp"

#include <map>
#include <string>

namespace trainer::core::apiserver {

server::Response handlePodLog(const RequestInfo& info, const std::map<std::string, std::string>& query,
                              const Store& store, const ApiServerOptions& options);

}  // namespace trainer::core::apiserver
