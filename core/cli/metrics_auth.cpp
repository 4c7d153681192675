#include "core/cli/metrics_auth.hpp"

#include "core/apiserver/bootstrap.hpp"
#include "core/auth/request_authorizer.hpp"
#include "core/cli/embedded_api.hpp"

#include <memory>

namespace trainer::core::cli {

std::optional<server::Route> metricsRouteOf(const controller::Configuration& cfg, const server::Registry& metrics,
                                            const Args& args, kube::Client* client, std::string& error) {
    server::Route route = server::metricsRoute(metrics);
    if (!cfg.metricsAuthEnabled) return route;
    if (client) return auth::protectRoute(std::move(route), std::make_shared<auth::KubeRequestAuthorizer>(*client));
    // The same credentials the embedded API serves with (made here when it is off).
    apiserver::Credentials creds;
    auto certDir = embeddedApiOptions(args, args.get("store", kDefaultStorePath)).certDir;
    if (auto err = apiserver::ensureCredentials(certDir, creds); !err.empty()) {
        error = "metrics.auth.enabled: the embedded API's admin token in " + certDir + ": " + err;
        return std::nullopt;
    }
    return auth::protectRoute(std::move(route), std::make_shared<auth::StaticTokenRequestAuthorizer>(creds.token));
}

}  // namespace trainer::core::cli
