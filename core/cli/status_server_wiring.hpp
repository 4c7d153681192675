// What `run` starts for upstream's TrainJobStatus feature gate (alpha, off by default): the status
// server (core/statusserver/) on statusServer.port, through which training processes report
// progress into status.trainerStatus, and what vouches for their tokens.
//
// - Embedded mode (`run --store`): the operator is its own token issuer. A signing key in the
//   local executor's state directory (<state>/service-account/, mode 0600) gives one
//   ServiceAccountTokenIssuer, shared by the kubelet (it fills the pods' projected
//   serviceAccountToken volumes) and the EmbeddedTokenAuthorizer (it verifies them and checks the
//   bound pod still exists). The serving certificate, for <serviceName>.<namespace>.svc (and
//   localhost, 127.0.0.1), is kept with its CA in the store as the Secret
//   <namespace>/<certManagement.webhookSecretName> (ca.crt, tls.crt, tls.key), made once and
//   reused across restarts as upstream's cert management does (the Info's `operator` member tells
//   plugins its name, so they can hand the CA to the pods). The server listens on all interfaces,
//   and the kubelet maps <serviceName>.<namespace>.svc to the host's address on the pod network in
//   every pod's /etc/hosts, so an https://<serviceName>.<namespace>.svc:<port> URL reaches it.
// - Cluster mode (`run --kubeconfig`): the webhook's serving certificate (what the
//   WebhookCertManager writes into the webhook certificate directory) and a TokenReviewAuthorizer
//   over the API client.
// - Gate off: nothing is made, no port is opened, no Secret written.
#pragma once

#include "core/auth/service_account_tokens.hpp"
#include "core/auth/token_authorizer.hpp"
#include "core/controller/configuration.hpp"
#include "core/kube/client.hpp"
#include "core/server/http.hpp"
#include "core/server/webhook.hpp"
#include "core/statusserver/status_server.hpp"
#include "core/store/store.hpp"

#include <boost/asio/io_context.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace trainer::core::cli {

struct StatusServerInputs {
    const controller::Configuration* cfg = nullptr;  // the gate, statusServer.*, certManagement.*, tls
    Store* store = nullptr;                          // where TrainJob status is written
    std::string operatorNamespace;                   // the Service's namespace (OperatorSettings)
    // Embedded mode: the local executor's state directory (executorStateDir of the store).
    std::filesystem::path stateDir;
    // Cluster mode: the API client (TokenReview) and the webhook's serving certificate (empty
    // when the operator has none, which is then an error).
    kube::Client* client = nullptr;
    server::TlsProvider webhookTls;
};

// The running status server and what it needs; run keeps it until the io_context is done.
class StatusServerWiring {
public:
    StatusServerWiring() = default;
    ~StatusServerWiring();
    StatusServerWiring(const StatusServerWiring&) = delete;
    StatusServerWiring& operator=(const StatusServerWiring&) = delete;

    // Embedded mode: what the local executor's kubelet gets (KubeletOptions tokenIssuer and
    // nodeHostNames); null and empty in cluster mode.
    std::shared_ptr<const auth::ServiceAccountTokenIssuer> tokenIssuer;
    std::vector<std::string> nodeHostNames;

    void stop();
    unsigned short port() const;

    // Set by startStatusServer (order matters: the server goes before what it uses).
    std::unique_ptr<server::CertWatcher> certs;
    std::unique_ptr<auth::TokenAuthorizer> authorizer;
    std::unique_ptr<statusserver::StatusServer> server;
};

// With the TrainJobStatus gate off: null, `error` empty, nothing done. With it on: the status
// server listening (embedded mode when `in.client` is null, else cluster mode), or null and
// `error` saying what could not be made or bound.
std::unique_ptr<StatusServerWiring> startStatusServer(boost::asio::io_context& io, const StatusServerInputs& in,
                                                      std::string& error);

// The status server's host name as pods address it (upstream's KUBEFLOW_TRAINER_SERVER_URL host):
// "<serviceName>.<namespace>.svc".
std::string statusServerHost(const controller::Configuration& cfg, const std::string& operatorNamespace);

}  // namespace trainer::core::cli
