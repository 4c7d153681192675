#include "core/server/health.hpp"

#include "core/log/log.hpp"

namespace trainer::core::server {

Health::Health() {
    healthz_.emplace("ping", [] { return std::string(); });
}

void Health::addHealthzCheck(std::string name, Check check) {
    std::lock_guard lock(mu_);
    healthz_[std::move(name)] = std::move(check);
}

void Health::addReadyzCheck(std::string name, Check check, bool serveReason) {
    std::lock_guard lock(mu_);
    if (serveReason) servedReasons_.insert(name);
    else servedReasons_.erase(name);
    readyz_[std::move(name)] = std::move(check);
}

void Health::setReady(const std::string& name, bool ready, std::string reason) {
    std::lock_guard lock(mu_);
    auto& flag = flags_[name];
    if (!flag) {
        flag = std::make_shared<Flag>();
        readyz_[name] = [flag, this] {
            std::lock_guard inner(mu_);
            return flag->ready ? std::string() : flag->reason;
        };
    }
    flag->ready = ready;
    flag->reason = reason.empty() ? "not ready" : std::move(reason);
}

Response Health::evaluate(const std::map<std::string, Check>& checks, const std::set<std::string>& served,
                          std::string_view kind, bool verbose) const {
    // Checks run outside the lock (a flag check takes it again).
    std::string lines;
    bool failed = false;
    for (const auto& [name, check] : checks) {
        std::string reason;
        try {
            reason = check ? check() : std::string();
        } catch (const std::exception& e) {
            reason = e.what();
        } catch (...) {
            reason = "check threw";
        }
        if (reason.empty()) {
            lines += "[+]" + name + " ok\n";
        } else {
            failed = true;
            lines += "[-]" + name + " failed: " + (served.count(name) ? reason : "reason withheld") + "\n";
            log::Logger("healthz").debug(std::string(kind) + " check failed", {{"checker", name}, {"reason", reason}});
        }
    }
    Response r;
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    if (!failed && !verbose) {
        r.body = "ok";
        return r;
    }
    r.status = failed ? 500 : 200;
    r.body = lines + std::string(kind) + (failed ? " check failed\n" : " check passed\n");
    return r;
}

Response Health::healthz(bool verbose) const {
    std::map<std::string, Check> checks;
    {
        std::lock_guard lock(mu_);
        checks = healthz_;
    }
    return evaluate(checks, {}, "healthz", verbose);
}

Response Health::readyz(bool verbose) const {
    std::map<std::string, Check> checks;
    std::set<std::string> served;
    {
        std::lock_guard lock(mu_);
        checks = readyz_;
        served = servedReasons_;
    }
    return evaluate(checks, served, "readyz", verbose);
}

std::vector<Route> Health::routes() const {
    auto verbose = [](const Request& req) { return req.query.find("verbose") != std::string::npos; };
    return {
        Route{"GET", "/healthz", [this, verbose](const Request& req) { return healthz(verbose(req)); }},
        Route{"GET", "/readyz", [this, verbose](const Request& req) { return readyz(verbose(req)); }},
    };
}

}  // namespace trainer::core::server
