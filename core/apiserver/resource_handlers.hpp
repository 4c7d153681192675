// The REST verbs on one resource (get, list, watch, create, update, patch, delete,
// deletecollection; the status subresource), each a function of one request's context.
#pragma once

#include "core/apiserver/api_server.hpp"
#include "core/apiserver/request_info.hpp"

#include <map>

namespace trainer::core::apiserver {

// Everything one resource request works with, parsed once.
struct HandlerContext {
    const server::Request& request;
    RequestInfo info;
    std::map<std::string, std::string> query;
    // The request's resource, shared with the registry (never copied: a CRD's carries its schema);
    // `resource` is *shared, for as long as the context lives.
    ResourceRegistry::Resource shared;
    const ApiResource& resource;
    Store& store;
    ResourceRegistry& registry;
    const AdmitFn& admit;
    const ApiServerOptions& options;
};

// Runs the verb of `ctx.info` (a table of verb -> handler).
server::Response dispatchVerb(HandlerContext& ctx);

// Sets a stored CRD's status as the apiextensions controllers would (NamesAccepted,
// Established, acceptedNames, storedVersions).
void markCrdEstablished(Store& store, json::object crd);

}  // namespace trainer::core::apiserver
