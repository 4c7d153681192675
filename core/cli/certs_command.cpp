// certs: a CA and a webhook serving certificate for a service name and namespace.
#include "core/cli/cli.hpp"
#include "core/server/certs.hpp"

namespace trainer::core::cli {

int cmdCerts(const Args& args, Io& io) {
    server::CertOptions opts;
    opts.service = args.get("service-name", opts.service);
    opts.ns = args.get("namespace", opts.ns);
    const std::string dir = args.get("out-dir");
    if (dir.empty()) {
        io.err << "error: --out-dir is required\n";
        return 1;
    }
    if (opts.service.empty() || opts.ns.empty()) {
        io.err << "error: --service-name and --namespace must not be empty\n";
        return 1;
    }
    if (auto err = server::generateCertificates(dir, opts); !err.empty()) {
        io.err << "error: " << err << "\n";
        return 1;
    }
    io.out << "wrote " << dir << "/ca.crt, " << dir << "/tls.crt and " << dir << "/tls.key for";
    for (auto const& n : server::servingDnsNames(opts)) io.out << " " << n;
    io.out << "\n";
    return 0;
}

}  // namespace trainer::core::cli
