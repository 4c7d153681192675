// Discovery documents (/api, /api/v1, /apis, /apis/<group>, /apis/<group>/<version>) and
// /version, built from the registry as the API server builds them (metav1.APIVersions,
// APIGroupList, APIGroup, APIResourceList; version.Info).
#pragma once

#include "core/apiserver/resources.hpp"

#include <optional>

namespace trainer::core::apiserver {

json::object apiVersions(const std::string& serverAddress);
json::object apiGroupList(const ResourceRegistry& registry);
// nullopt when the group is not served.
std::optional<json::object> apiGroup(const ResourceRegistry& registry, std::string_view group);
// nullopt when the group version is not served.
std::optional<json::object> apiResourceList(const ResourceRegistry& registry, std::string_view group,
                                            std::string_view version);
// The /version document: a Kubernetes 1.32 server, as the clients here expect.
json::object versionInfo();

}  // namespace trainer::core::apiserver
