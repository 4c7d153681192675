// The Kubernetes API over the store: authentication, discovery, and the REST verbs of every
// resource the registry serves (get, list, watch, create, update, patch, delete,
// deletecollection, the status subresource), answering as the real API server answers.
// Served by server::HttpServer over TLS (see core/cli/apiserver_command.cpp).
#pragma once

#include "core/apiserver/resources.hpp"
#include "core/apiserver/status.hpp"
#include "core/controller/admission_control.hpp"
#include "core/server/http.hpp"
#include "core/store/store.hpp"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace trainer::core::apiserver {

// Admission of one object (CREATE: old is null); bound by the caller to the loaded plugins.
using AdmitFn = std::function<controller::AdmissionResult(json::object& obj, const json::object* old)>;

struct ApiServerOptions {
    std::string token;                         // the bearer token every resource request needs
    std::size_t bodyLimit = 3u << 20;          // larger bodies: 413 RequestEntityTooLarge
    std::chrono::milliseconds bookmarkInterval{1000};
    std::chrono::seconds minRequestTimeout{1800};  // a watch without timeoutSeconds ends in [1x, 2x)
    std::function<std::chrono::system_clock::time_point()> clock;  // for tables; system clock when empty
    // Watch bookmarks and timeoutSeconds (the time seam tests move by hand); steady_clock when empty.
    std::function<std::chrono::steady_clock::time_point()> steadyClock;
    // The local executor's state directory (core/executor/pod_logs.hpp, `<store>.local`) where
    // pods/log reads container logs; empty: pods/log answers 400 (no executor).
    std::string podLogDir;
    // How often a followed log (pods/log?follow=true) is read when nothing woke it: a write to
    // its file (executor/file_watch.hpp) and this process's commits (its pod's status) wake it
    // at once. A file that cannot be watched is read every executor::kPollInterval instead.
    std::chrono::milliseconds logFollowFallback{5000};
};

class ApiServer {
public:
    ApiServer(Store& store, ResourceRegistry& registry, AdmitFn admit, ApiServerOptions options);

    // Seeds what a fresh cluster has (namespace `default`, the trainer CRDs) and serves every
    // CRD already stored. Returns an error message, empty on success.
    std::string initialize();

    // Routes for server::HttpServer and its error responder (errors as Status objects).
    std::vector<server::Route> routes();
    server::ErrorResponder errorResponder() const;

    // One request (what the routes call).
    server::Response handle(const server::Request& req);

private:
    Store& store_;
    ResourceRegistry& registry_;
    AdmitFn admit_;
    ApiServerOptions options_;
};

}  // namespace trainer::core::apiserver
