// What the verb handlers share: request bodies decoded and checked against the path, store
// results turned into API errors, the field manager, the list shapes for apply, and responses
// rendered as the client asked (an object, or a Table).
#pragma once

#include "core/apiserver/field_manager.hpp"
#include "core/apiserver/resource_handlers.hpp"

#include <optional>
#include <string>
#include <vector>

namespace trainer::core::apiserver {

std::string strOf(const json::object& o, std::string_view k);
const json::object& metaOf(const json::object& o);
json::object& metaOf(json::object& o);

// The key of object `name` of the request's resource (namespace from the path).
ObjectKey keyFor(const HandlerContext& ctx, const std::string& name);

// A failed store call as the API server reports it.
ApiError storeError(const HandlerContext& ctx, const ObjectKey& key, const StoreResult& r);

// The request body as an object (JSON, or YAML for application/yaml and apply patches).
std::optional<json::object> decodeBody(const HandlerContext& ctx, ApiError& error);

// Checks apiVersion, kind, namespace and (when `name` is given) name of a body against the
// path, filling what the client left out, as the API server does.
std::optional<ApiError> checkIdentity(const HandlerContext& ctx, json::object& obj, const std::string& name);

// fieldManager from the query, else the User-Agent's program name ("kubectl"), as upstream.
std::string fieldManager(const HandlerContext& ctx);

// How lists of this resource merge under server-side apply.
ListShapeFn listShapes(const ApiResource& resource);

// "2024-05-01T12:00:00Z" now.
std::string nowStamp(const HandlerContext& ctx);
std::chrono::system_clock::time_point now(const HandlerContext& ctx);

// Whether the client asked for a Table, and includeObject.
bool wantsTable(const HandlerContext& ctx);

// `objects` as a meta.k8s.io/v1 Table of `resource` (includeObject: None, Metadata (default) or Object).
json::object tableOf(const ApiResource& resource, const std::vector<json::object>& objects,
                     const std::string& includeObject, const std::string& rv, const std::string& continueToken,
                     std::chrono::system_clock::time_point now);
// The same for the request's resource and includeObject.
json::object tableOf(const HandlerContext& ctx, const std::vector<json::object>& objects, const std::string& rv,
                     const std::string& continueToken);

// An object response (201/200), as a Table when asked, with admission warnings as `Warning` headers.
server::Response objectResponse(const HandlerContext& ctx, unsigned status, const json::object& obj,
                                const std::vector<std::string>& warnings = {});

// Query flag "true"/"1".
bool queryFlag(const HandlerContext& ctx, const char* name);

// Admission (defaults, mutation, schema, webhook) of `obj` for a write; the error as the API
// server reports it (422 Invalid, or 403 naming the webhook), warnings added to `warnings`.
std::optional<ApiError> admitWrite(const HandlerContext& ctx, json::object& obj, const json::object* old,
                                   std::vector<std::string>& warnings);

// The verbs (read_handlers.cpp, write_handlers.cpp).
server::Response handleGet(HandlerContext& ctx);
server::Response handleList(HandlerContext& ctx);
server::Response handleWatch(HandlerContext& ctx);
server::Response handleCreate(HandlerContext& ctx);
server::Response handleUpdate(HandlerContext& ctx);
server::Response handlePatch(HandlerContext& ctx);
server::Response handleDelete(HandlerContext& ctx);
server::Response handleDeleteCollection(HandlerContext& ctx);

}  // namespace trainer::core::apiserver
