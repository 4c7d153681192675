#include "core/apiserver/api_server.hpp"

#include "core/apiserver/discovery.hpp"
#include "core/apiserver/openapi.hpp"
#include "core/apiserver/pod_log.hpp"
#include "core/apiserver/request_info.hpp"
#include "core/apiserver/resource_handlers.hpp"
#include "core/log/log.hpp"

#include <openssl/crypto.h>

namespace trainer::core::apiserver {

namespace {

server::Response jsonResponse(unsigned status, const json::value& body) {
    server::Response r;
    r.status = status;
    r.contentType = "application/json";
    r.body = json::serialize(body);
    return r;
}

server::Response textResponse(std::string body) {
    server::Response r;
    r.body = std::move(body);
    return r;
}

ApiError unauthorized() { return {Reason::Unauthorized, "Unauthorized", {}}; }

ApiError pathNotFound() { return {Reason::NotFound, "the server could not find the requested resource", {}}; }

// Paths anyone may read, as the API server's system:public-info-viewer role allows.
bool isPublic(const std::string& path) {
    return path == "/version" || path == "/healthz" || path == "/livez" || path == "/readyz" ||
           path.starts_with("/healthz/") || path.starts_with("/livez/") || path.starts_with("/readyz/");
}

bool tokenMatches(const std::string& header, const std::string& token) {
    constexpr std::string_view prefix = "Bearer ";
    if (token.empty() || header.size() != prefix.size() + token.size()) return false;
    if (std::string_view(header).substr(0, prefix.size()) != prefix) return false;
    return CRYPTO_memcmp(header.data() + prefix.size(), token.data(), token.size()) == 0;
}

}  // namespace

ApiServer::ApiServer(Store& store, ResourceRegistry& registry, AdmitFn admit, ApiServerOptions options)
    : store_(store), registry_(registry), admit_(std::move(admit)), options_(std::move(options)) {}

std::string ApiServer::initialize() {
    for (auto const& crd : embeddedTrainerCrds()) {
        auto key = keyOf(crd);
        auto existing = store_.get(key);
        if (existing.failed()) return "seeding " + key.name + ": " + existing.message;
        if (existing.notFound()) {
            auto r = store_.create(crd);
            if (!r.ok() && r.status != StoreStatus::AlreadyExists) return "seeding " + key.name + ": " + r.message;
            if (r.ok()) markCrdEstablished(store_, r.object);
        }
    }
    auto defaultNs = store_.get(ObjectKey{"v1", "Namespace", "", "default"});
    if (defaultNs.failed()) return "reading namespace default: " + defaultNs.message;
    if (defaultNs.notFound()) {
        auto r = store_.create(json::object{{"apiVersion", "v1"},
                                            {"kind", "Namespace"},
                                            {"metadata", json::object{{"name", "default"}}},
                                            {"spec", json::object{{"finalizers", json::array{"kubernetes"}}}}});
        if (r.ok()) {
            r.object["status"] = json::object{{"phase", "Active"}};
            store_.updateStatus(r.object);
        } else if (r.status != StoreStatus::AlreadyExists) {
            return "creating namespace default: " + r.message;
        }
    }
    auto crds = store_.list("apiextensions.k8s.io/v1", "CustomResourceDefinition");
    if (!crds.ok()) return "listing CustomResourceDefinitions: " + *crds.error;
    for (auto const& crd : crds.value)
        if (!crd.contains("metadata") || !crd.at("metadata").as_object().contains("deletionTimestamp"))
            registry_.addCrd(crd);
    return {};
}

std::vector<server::Route> ApiServer::routes() {
    std::vector<server::Route> out;
    for (auto method : {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"})
        out.push_back(server::Route{method, "/", [this](const server::Request& r) { return handle(r); }, true});
    return out;
}

server::ErrorResponder ApiServer::errorResponder() const {
    return [limit = options_.bodyLimit](unsigned status, const std::string& message) {
        Reason reason = status == 413   ? Reason::RequestEntityTooLarge
                        : status == 404 ? Reason::NotFound
                        : status == 405 ? Reason::MethodNotAllowed
                        : status >= 500 ? Reason::InternalError
                                        : Reason::BadRequest;
        ApiError e{reason, message, {}};
        if (status == 413) e.message = "Request entity too large: limit is " + std::to_string(limit);
        return errorResponse(e);
    };
}

server::Response ApiServer::handle(const server::Request& req) {
    if (isPublic(req.path)) {
        if (req.path == "/version") return jsonResponse(200, versionInfo());
        return textResponse("ok");
    }
    if (!tokenMatches(req.header("authorization"), options_.token)) return errorResponse(unauthorized());
    if (req.path == "/openapi/v3" || req.path == "/openapi/v3/") return jsonResponse(200, openApiV3Root(registry_));
    if (req.path.starts_with("/openapi/v3/")) {
        auto doc = openApiV3Document(registry_, std::string_view(req.path).substr(12));
        return doc ? jsonResponse(200, *doc) : errorResponse(pathNotFound());
    }
    auto query = parseQuery(req.query);
    auto info = parseRequestInfo(req.method, req.path, query);
    if (!info) return errorResponse(pathNotFound());
    if (!info->resourceRequest) {
        if (req.method != "GET" && req.method != "HEAD") return errorResponse(methodNotSupported());
        std::optional<json::object> doc;
        auto const& parts = req.path;
        if (parts == "/api" || parts == "/api/") doc = apiVersions(req.header("host"));
        else if (parts == "/apis" || parts == "/apis/") doc = apiGroupList(registry_);
        else if (info->version.empty()) doc = apiGroup(registry_, info->group);
        else doc = apiResourceList(registry_, info->group, info->version);
        if (!doc) return errorResponse(pathNotFound());
        return jsonResponse(200, *doc);
    }
    for (auto flag : {"watch", "allowWatchBookmarks", "force", "sendInitialEvents"})
        if (auto it = query.find(flag); it != query.end() && !parseBool(it->second))
            return errorResponse(badRequest("strconv.ParseBool: parsing \"" + it->second + "\": invalid syntax"));
    auto resource = registry_.find(info->group, info->version, info->resource);
    if (!resource || (info->hasNamespace && !resource->namespaced)) return errorResponse(pathNotFound());
    if (info->subresource == "log" && resource->group.empty() && resource->kind == "Pod" && info->hasNamespace)
        return handlePodLog(*info, query, store_, options_);
    if (!info->subresource.empty() && (info->subresource != "status" || !resource->statusSubresource))
        return errorResponse(pathNotFound());
    if (!resource->allows(info->verb)) return errorResponse(methodNotSupported());
    HandlerContext ctx{req, *info, std::move(query), resource, *resource, store_, registry_, admit_, options_};
    try {
        return dispatchVerb(ctx);
    } catch (const std::exception& e) {
        log::Logger("apiserver").error("request failed", {{"path", req.path}, {"error", e.what()}});
        return errorResponse(internalError(e.what()));
    }
}

}  // namespace trainer::core::apiserver
