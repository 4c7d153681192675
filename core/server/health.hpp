// /healthz and /readyz like controller-runtime's healthz handler: "ok" when every named check
// passes, else 500 with one "[+]name ok" / "[-]name failed: reason withheld" line per check
// (the reason itself for a check added with `serveReason`).
#pragma once

#include "core/server/http.hpp"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace trainer::core::server {

// A check returns empty when healthy, else the (logged, never served) reason.
using Check = std::function<std::string()>;

// Default bind address of the health probes.
inline constexpr std::string_view kDefaultHealthBindAddress = ":8081";

// Named liveness and readiness checks. Thread-safe; checks may be added while serving.
class Health {
public:
    Health();
    // Liveness checks ("ping" is always present and always passes).
    void addHealthzCheck(std::string name, Check check);
    // `serveReason`: a failing line carries the reason instead of "reason withheld" (for what an
    // operator must see, e.g. which plugin call is stuck).
    void addReadyzCheck(std::string name, Check check, bool serveReason = false);
    // A readiness flag named `name`, failing with `reason` until set to true.
    void setReady(const std::string& name, bool ready, std::string reason = "not ready");

    // Status and body of one endpoint; `verbose` lists passing checks too (?verbose).
    Response healthz(bool verbose = false) const;
    Response readyz(bool verbose = false) const;
    // GET /healthz and GET /readyz (this object must outlive the server).
    std::vector<Route> routes() const;

private:
    struct Flag {
        bool ready = false;
        std::string reason;
    };
    Response evaluate(const std::map<std::string, Check>& checks, const std::set<std::string>& served,
                      std::string_view kind, bool verbose) const;

    mutable std::mutex mu_;
    std::map<std::string, Check> healthz_;
    std::map<std::string, Check> readyz_;
    std::map<std::string, std::shared_ptr<Flag>> flags_;
    std::set<std::string> servedReasons_;
};

}  // namespace trainer::core::server
