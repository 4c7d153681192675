// The OpenAPI v3 discovery kubectl reads before it writes: /openapi/v3 lists one document per
// group version, and each document's PATCH operations declare the `fieldValidation` query
// parameter with their x-kubernetes-group-version-kind, so kubectl leaves validation to the
// server (kubectl's QueryParamVerifierV3) instead of asking for a full OpenAPI v2 schema.
#pragma once

#include "core/apiserver/resources.hpp"

#include <optional>

namespace trainer::core::apiserver {

// {"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=..."}, ...}}
json::object openApiV3Root(const ResourceRegistry& registry);

// The document of "api/v1" or "apis/<group>/<version>"; nullopt when not served.
std::optional<json::object> openApiV3Document(const ResourceRegistry& registry, std::string_view groupVersionPath);

}  // namespace trainer::core::apiserver
