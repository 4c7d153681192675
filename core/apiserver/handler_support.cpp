#include "core/apiserver/handler_support.hpp"

#include "core/apiserver/protobuf.hpp"
#include "core/apiserver/table.hpp"
#include "core/api/schema.hpp"
#include "core/json/io.hpp"
#include "core/store/immutable_fields.hpp"

#include <algorithm>

namespace trainer::core::apiserver {

std::string strOf(const json::object& o, std::string_view k) {
    auto* v = o.if_contains(k);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

const json::object& metaOf(const json::object& o) {
    static const json::object empty;
    auto* v = o.if_contains("metadata");
    return v && v->is_object() ? v->as_object() : empty;
}

json::object& metaOf(json::object& o) {
    auto& v = o["metadata"];
    if (!v.is_object()) v = json::object{};
    return v.as_object();
}

ObjectKey keyFor(const HandlerContext& ctx, const std::string& name) {
    return ObjectKey{ctx.resource.apiVersion(), ctx.resource.kind, ctx.resource.namespaced ? ctx.info.ns : "", name};
}

ApiError storeError(const HandlerContext& ctx, const ObjectKey& key, const StoreResult& r) {
    auto resource = ctx.resource.groupResource();
    switch (r.status) {
    case StoreStatus::NotFound: return notFound(resource, key.name);
    case StoreStatus::AlreadyExists: return alreadyExists(resource, key.name);
    case StoreStatus::Conflict: {
        auto e = conflict(resource, key.name, "");
        e.message = r.message;
        return e;
    }
    case StoreStatus::Invalid: {
        ApiError e{Reason::Invalid, r.message, {}};
        return e;
    }
    case StoreStatus::Ok:
    case StoreStatus::Error: break;
    }
    return internalError(r.message);
}

namespace {

std::string mediaType(const std::string& contentType) {
    auto semi = contentType.find(';');
    std::string t = contentType.substr(0, semi);
    while (!t.empty() && t.back() == ' ') t.pop_back();
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    return t;
}

// The prefix of a body that does not decode (handlers/rest.go transformDecodeError).
std::string unrecognized(const HandlerContext& ctx) {
    return "the object provided is unrecognized (must be of type " + ctx.resource.kind + "): ";
}

bool isYaml(const std::string& media) {
    return media == "application/yaml" || media == "application/apply-patch+yaml" || media == "text/yaml";
}

}  // namespace

std::optional<json::object> decodeBody(const HandlerContext& ctx, ApiError& error) {
    const auto& body = ctx.request.body;
    auto media = mediaType(ctx.request.header("content-type"));
    if (media == kKubernetesProtobufContentType && ctx.resource.builtin) {
        auto r = decodeKubernetesProtobuf(body, {ctx.resource.apiVersion(), ctx.resource.kind});
        if (!r.ok) {
            error = badRequest(ctx.resource.kind + " in version \"" + ctx.resource.version + "\" cannot be handled as a " +
                               ctx.resource.kind + ": " + r.error);
            return std::nullopt;
        }
        return std::move(r.object);
    }
    if (!media.empty() && media != "application/json" && !isYaml(media) && media.find("json") == std::string::npos) {
        error = {Reason::UnsupportedMediaType,
                 "the body of the request was in an unknown format - accepted media types include: "
                 "application/json, application/yaml",
                 {}};
        return std::nullopt;
    }
    json::value v;
    if (isYaml(media)) {
        std::vector<json::value> docs;
        std::string err;
        if (!parseYaml(body, docs, err)) {
            error = badRequest("error converting YAML to JSON: yaml: " + err);
            return std::nullopt;
        }
        if (docs.size() != 1) {
            error = badRequest(docs.empty() ? "Object 'Kind' is missing in '" + body + "'"
                                            : "error converting YAML to JSON: more than one document");
            return std::nullopt;
        }
        v = std::move(docs.front());
    } else {
        std::string why;
        if (!parseJson(body, v, why)) {  // the input limits every entry point shares (core/json/io.hpp)
            error = badRequest(unrecognized(ctx) + "couldn't get version/kind; json parse error: " + why);
            return std::nullopt;
        }
    }
    if (!v.is_object()) {
        error = badRequest(unrecognized(ctx) + "couldn't get version/kind; json parse error: json: cannot unmarshal " +
                           std::string(v.is_array() ? "array" : "value") + " into Go value of type struct { APIVersion " +
                           "string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }");
        return std::nullopt;
    }
    return std::move(v.as_object());
}

namespace {

// Maps of strings a Go client would fail to decode otherwise: {kind ("" = any), member path, Go field}.
struct StringMapField {
    std::string_view kind;
    std::string_view parent;
    std::string_view member;
    std::string_view goField;
};
constexpr StringMapField kStringMaps[] = {
    {"", "metadata", "labels", "ObjectMeta.metadata.labels"},
    {"", "metadata", "annotations", "ObjectMeta.metadata.annotations"},
    {"ConfigMap", "", "data", "ConfigMap.data"},
    {"ConfigMap", "", "binaryData", "ConfigMap.binaryData"},
    {"Secret", "", "data", "Secret.data"},
    {"Secret", "", "stringData", "Secret.stringData"},
};

std::string_view goTypeName(const json::value& v) {
    if (v.is_bool()) return "bool";
    if (v.is_number()) return "number";
    if (v.is_array()) return "array";
    if (v.is_object()) return "object";
    return "string";
}

// The decode error a typed server gives for a non-string value in a map of strings.
std::optional<ApiError> typeError(const HandlerContext& ctx, const json::object& obj) {
    for (auto const& f : kStringMaps) {
        if (!f.kind.empty() && (!ctx.resource.builtin || ctx.resource.kind != f.kind)) continue;
        if (f.kind.empty() && !ctx.resource.builtin && f.parent != "metadata") continue;
        const json::object* parent = &obj;
        if (!f.parent.empty()) {
            auto* p = obj.if_contains(f.parent);
            if (!p || !p->is_object()) continue;
            parent = &p->as_object();
        }
        auto* m = parent->if_contains(f.member);
        if (!m || m->is_null()) continue;
        auto bad = [&](const json::value& v) {
            return badRequest(ctx.resource.kind + " in version \"" + ctx.resource.version + "\" cannot be handled as a " +
                              ctx.resource.kind + ": json: cannot unmarshal " + std::string(goTypeName(v)) +
                              " into Go struct field " + std::string(f.goField) + " of type " +
                              (m->is_object() ? "string" : "map[string]string"));
        };
        if (!m->is_object()) return bad(*m);
        for (auto const& kv : m->as_object())
            if (!kv.value().is_string() && !kv.value().is_null()) return bad(kv.value());
    }
    return std::nullopt;
}

}  // namespace

std::optional<ApiError> checkIdentity(const HandlerContext& ctx, json::object& obj, const std::string& name) {
    if (auto e = typeError(ctx, obj)) return e;
    auto const& r = ctx.resource;
    std::string apiVersion = strOf(obj, "apiVersion"), kind = strOf(obj, "kind");
    // Built-in kinds decode with the endpoint's kind as the default, custom resources do not.
    if (r.builtin && kind.empty()) obj["kind"] = kind = r.kind;
    if (r.builtin && apiVersion.empty()) obj["apiVersion"] = apiVersion = r.apiVersion();
    if (kind.empty()) return badRequest("Object 'Kind' is missing in '" + json::serialize(obj).substr(0, 256) + "'");
    if (apiVersion.empty()) obj["apiVersion"] = apiVersion = r.apiVersion();
    if (apiVersion != r.apiVersion() || kind != r.kind) {
        auto slash = apiVersion.rfind('/');
        std::string version = slash == std::string::npos ? apiVersion : apiVersion.substr(slash + 1);
        return badRequest(kind + " in version \"" + version + "\" cannot be handled as a " + r.kind + ": converting (" +
                          version + "." + kind + ") to (" + (r.group.empty() ? "core" : r.group) + "." + r.kind +
                          "): unknown conversion");
    }
    auto& m = metaOf(obj);
    if (r.namespaced) {
        auto ns = strOf(m, "namespace");
        if (ns.empty()) m["namespace"] = ctx.info.ns;
        else if (ns != ctx.info.ns)
            return badRequest("the namespace of the provided object does not match the namespace sent on the request");
    } else {
        m.erase("namespace");
    }
    if (!name.empty()) {
        auto given = strOf(m, "name");
        if (given.empty()) m["name"] = name;
        else if (given != name)
            return badRequest("the name of the object (" + given + ") does not match the name on the URL (" + name + ")");
    }
    return std::nullopt;
}

std::string fieldManager(const HandlerContext& ctx) {
    if (auto it = ctx.query.find("fieldManager"); it != ctx.query.end() && !it->second.empty()) return it->second;
    auto ua = ctx.request.header("user-agent");
    auto slash = ua.find('/');
    std::string prefix = ua.substr(0, slash);
    return prefix.empty() ? "unknown" : prefix.substr(0, 128);
}

std::chrono::system_clock::time_point now(const HandlerContext& ctx) {
    return ctx.options.clock ? ctx.options.clock() : std::chrono::system_clock::now();
}

std::string nowStamp(const HandlerContext& ctx) { return formatRfc3339(now(ctx)); }

bool wantsTable(const HandlerContext& ctx) {
    return ctx.request.header("accept").find("as=Table") != std::string::npos;
}

bool queryFlag(const HandlerContext& ctx, const char* name) {
    auto it = ctx.query.find(name);
    return it != ctx.query.end() && (it->second == "All" || parseBool(it->second).value_or(false));
}

server::Response objectResponse(const HandlerContext& ctx, unsigned status, const json::object& obj,
                                const std::vector<std::string>& warnings) {
    server::Response r;
    r.status = status;
    r.contentType = "application/json";
    if (wantsTable(ctx)) {
        r.body = json::serialize(tableOf(ctx, {obj}, strOf(metaOf(obj), "resourceVersion"), ""));
    } else {
        r.body = json::serialize(obj);
    }
    for (auto const& w : warnings) {
        std::string text;
        for (char c : w) text += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
        r.headers.emplace_back("Warning", "299 - \"" + text + "\"");
    }
    return r;
}

ListShapeFn listShapes(const ApiResource& resource) {
    auto builtin = builtinListShapes(resource.builtin ? resource.kind : "");
    if (resource.schema.empty()) return builtin;
    return listShapeFromSchema(&resource.schema, builtin);
}

json::object tableOf(const ApiResource& resource, const std::vector<json::object>& objects,
                     const std::string& includeObject, const std::string& rv, const std::string& continueToken,
                     std::chrono::system_clock::time_point now) {
    std::string error;
    auto include = parseIncludeObject(includeObject, error).value_or(IncludeObject::Metadata);
    auto columns = tableColumns(resource.kind, resource.builtin, resource.printerColumns);
    return buildTable(objects, columns, include, rv, continueToken, now);
}

json::object tableOf(const HandlerContext& ctx, const std::vector<json::object>& objects, const std::string& rv,
                     const std::string& continueToken) {
    auto it = ctx.query.find("includeObject");
    return tableOf(ctx.resource, objects, it == ctx.query.end() ? "" : it->second, rv, continueToken, now(ctx));
}

std::optional<ApiError> admitWrite(const HandlerContext& ctx, json::object& obj, const json::object* old,
                                   std::vector<std::string>& warnings) {
    if (!ctx.resource.builtin && !ctx.resource.schema.empty()) applySchemaDefaults(obj, ctx.resource.schema);
    // The store refuses the same on write (txn_store.cpp); checked here too for dry runs.
    if (auto errors = old ? immutableFieldErrors(*old, obj) : ErrorList{}; !errors.empty())
        return invalid(ctx.resource.kind, ctx.resource.group, keyOf(obj).name, errors);
    if (!ctx.admit) return std::nullopt;
    auto result = ctx.admit(obj, old);
    for (auto const& w : result.schema.warnings) warnings.push_back(w.message);
    for (auto const& w : result.webhook.warnings) warnings.push_back(w.message);
    auto key = keyOf(obj);
    if (!result.schema.ok()) return invalid(ctx.resource.kind, ctx.resource.group, key.name, result.schema.errors);
    // Admission could not read the cluster: neither admitted nor denied; the client retries.
    if (result.readError) return internalError(*result.readError);
    if (!result.webhook.ok()) {
        ApiError e{Reason::Forbidden,
                   "admission webhook \"" + result.webhookName + "\" denied the request: " +
                       joinErrors(result.webhook.errors),
                   {}};
        return e;
    }
    return std::nullopt;
}

}  // namespace trainer::core::apiserver
