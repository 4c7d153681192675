// The /metrics route as `run` serves it: open, or with the Configuration's
// `metrics.auth.enabled` guarded as controller-runtime's WithAuthenticationAndAuthorization
// guards it (core/auth/request_authorizer.hpp): in a cluster a TokenReview and a
// SubjectAccessReview for `get /metrics`; on the embedded store the embedded API's admin token
// (the one in `<store>.kubeconfig`), its only principal.
#pragma once

#include "core/cli/cli.hpp"
#include "core/controller/configuration.hpp"
#include "core/kube/client.hpp"
#include "core/server/http.hpp"
#include "core/server/metrics.hpp"

#include <optional>
#include <string>

namespace trainer::core::cli {

// `client` is the cluster's API client (null on the embedded store). nullopt with `error` set
// when the guard cannot be made (the embedded API's credentials are unreadable).
std::optional<server::Route> metricsRouteOf(const controller::Configuration& cfg, const server::Registry& metrics,
                                            const Args& args, kube::Client* client, std::string& error);

}  // namespace trainer::core::cli
