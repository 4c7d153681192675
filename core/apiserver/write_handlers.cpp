// create, update, patch (merge, JSON, strategic, apply), delete and deletecollection, with
// admission, managedFields, dry runs, and what a write means for CRDs and namespaces.
#include "core/apiserver/handler_support.hpp"
#include "core/apiserver/patch.hpp"
#include "core/apiserver/protobuf.hpp"
#include "core/apiserver/selectors.hpp"

namespace trainer::core::apiserver {

namespace {

constexpr int kConflictRetries = 5;

bool isCrd(const ApiResource& r) { return r.group == "apiextensions.k8s.io" && r.kind == "CustomResourceDefinition"; }
bool isNamespace(const ApiResource& r) { return r.group.empty() && r.kind == "Namespace"; }

bool dryRun(const HandlerContext& ctx) { return queryFlag(ctx, "dryRun"); }

// What a stored write means beyond the object: a CRD starts or stops being served.
void afterWrite(HandlerContext& ctx, const json::object& stored) {
    if (isCrd(ctx.resource)) {
        if (ctx.registry.addCrd(stored) && !stored.contains("status")) markCrdEstablished(ctx.store, stored);
    }
}

// A namespaced create needs its namespace to exist and not be terminating.
std::optional<ApiError> namespaceReady(const HandlerContext& ctx) {
    if (!ctx.resource.namespaced) return std::nullopt;
    auto ns = ctx.store.get(ObjectKey{"v1", "Namespace", "", ctx.info.ns});
    if (ns.failed()) return internalError(ns.message);
    if (ns.notFound()) return notFound("namespaces", ctx.info.ns);
    if (metaOf(ns.object).contains("deletionTimestamp"))
        return ApiError{Reason::Forbidden,
                        ctx.resource.groupResource() + " is forbidden: unable to create new content in namespace " +
                            ctx.info.ns + " because it is being terminated",
                        {}};
    return std::nullopt;
}

// The fields a dry-run create would get from the store.
void dryRunMetadata(const HandlerContext& ctx, json::object& obj) {
    auto& m = metaOf(obj);
    if (strOf(m, "name").empty()) m["name"] = strOf(m, "generateName") + "dryrun";
    m["uid"] = newUuid();
    m["creationTimestamp"] = nowStamp(ctx);
    m["generation"] = 1;
}

json::object withStatusOf(json::object base, const json::object& from) {
    if (auto* s = from.if_contains("status")) base["status"] = *s;
    else base.erase("status");
    return base;
}

StoreResult writeUpdate(HandlerContext& ctx, const json::object& next) {
    return ctx.info.subresource == "status" ? ctx.store.updateStatus(next) : ctx.store.update(next);
}

}  // namespace

void markCrdEstablished(Store& store, json::object crd) {
    auto const& spec = crd.contains("spec") && crd.at("spec").is_object() ? crd.at("spec").as_object() : json::object{};
    json::array stored;
    if (auto* vs = spec.if_contains("versions"); vs && vs->is_array())
        for (auto const& v : vs->as_array())
            if (v.is_object() && v.as_object().if_contains("storage") && v.as_object().at("storage") == true)
                stored.push_back(v.as_object().at("name"));
    auto stamp = formatRfc3339(std::chrono::system_clock::now());
    auto condition = [&](const char* type, const char* reason, const char* message) {
        return json::object{{"type", type}, {"status", "True"}, {"lastTransitionTime", stamp}, {"reason", reason},
                            {"message", message}};
    };
    crd["status"] = json::object{
        {"conditions", json::array{condition("NamesAccepted", "NoConflicts", "no conflicts found"),
                                   condition("Established", "InitialNamesAccepted", "the initial names have been accepted")}},
        {"acceptedNames", spec.contains("names") ? spec.at("names") : json::object{}},
        {"storedVersions", std::move(stored)}};
    store.updateStatus(crd);
}

server::Response handleCreate(HandlerContext& ctx) {
    ApiError error;
    auto obj = decodeBody(ctx, error);
    if (!obj) return errorResponse(error);
    if (auto e = checkIdentity(ctx, *obj, "")) return errorResponse(*e);
    if (auto e = namespaceReady(ctx)) return errorResponse(*e);
    std::vector<std::string> warnings;
    if (auto e = admitWrite(ctx, *obj, nullptr, warnings)) return errorResponse(*e);
    recordUpdate(nullptr, *obj, fieldManager(ctx), nowStamp(ctx), listShapes(ctx.resource));
    if (ctx.resource.statusSubresource) obj->erase("status");
    if (isNamespace(ctx.resource)) (*obj)["status"] = json::object{{"phase", "Active"}};
    if (dryRun(ctx)) {
        dryRunMetadata(ctx, *obj);
        return objectResponse(ctx, 201, *obj, warnings);
    }
    auto r = ctx.store.create(*obj);
    if (!r.ok()) return errorResponse(storeError(ctx, keyOf(*obj), r));
    if (isNamespace(ctx.resource)) r = ctx.store.updateStatus(withStatusOf(r.object, *obj));
    afterWrite(ctx, r.object);
    return objectResponse(ctx, 201, r.object, warnings);
}

server::Response handleUpdate(HandlerContext& ctx) {
    ApiError error;
    auto obj = decodeBody(ctx, error);
    if (!obj) return errorResponse(error);
    if (auto e = checkIdentity(ctx, *obj, ctx.info.name)) return errorResponse(*e);
    auto key = keyFor(ctx, ctx.info.name);
    auto read = ctx.store.get(key);
    if (read.failed()) return errorResponse(internalError(read.message));  // not a 404: it may exist
    if (read.notFound()) return errorResponse(notFound(ctx.resource.groupResource(), key.name));
    const json::object* current = &read.object;
    if (!ctx.resource.builtin && strOf(metaOf(*obj), "resourceVersion").empty())
        return errorResponse(invalid(ctx.resource.kind, ctx.resource.group, key.name,
                                     {FieldError{"metadata.resourceVersion",
                                                 "Invalid value: 0x0: must be specified for an update", ErrorType::Invalid, ""}}));
    std::vector<std::string> warnings;
    json::object next = *obj;
    if (ctx.info.subresource == "status") {
        next = withStatusOf(*current, *obj);
        metaOf(next)["resourceVersion"] = strOf(metaOf(*obj), "resourceVersion");
    } else if (auto e = admitWrite(ctx, next, &*current, warnings)) {
        return errorResponse(*e);
    }
    recordUpdate(&*current, next, fieldManager(ctx), nowStamp(ctx), listShapes(ctx.resource), ctx.info.subresource);
    if (dryRun(ctx)) return objectResponse(ctx, 200, next, warnings);
    auto r = writeUpdate(ctx, next);
    if (!r.ok()) return errorResponse(storeError(ctx, key, r));
    afterWrite(ctx, r.object);
    return objectResponse(ctx, 200, r.object, warnings);
}

namespace {

std::string patchMedia(const HandlerContext& ctx) {
    auto t = ctx.request.header("content-type");
    t = t.substr(0, t.find(';'));
    while (!t.empty() && t.back() == ' ') t.pop_back();
    return t;
}

ApiError unsupportedPatch(const HandlerContext& ctx) {
    std::string accepted = "application/json-patch+json, application/merge-patch+json, ";
    if (ctx.resource.builtin) accepted += "application/strategic-merge-patch+json, ";
    accepted += "application/apply-patch+yaml";
    return {Reason::UnsupportedMediaType,
            "the body of the request was in an unknown format - accepted media types include: " + accepted,
            {}};
}

// A failed patch answered exactly as the patch library words it.
server::Response patchFailure(const PatchResult& p) {
    server::Response r;
    r.status = p.code ? p.code : 500;
    if (p.plainText) {
        r.body = p.message;
        return r;
    }
    r.contentType = "application/json";
    r.body = json::serialize(statusOf(p));
    return r;
}

// The fieldValidation query parameter (Warn when absent, as upstream).
FieldValidation fieldValidation(const HandlerContext& ctx) {
    auto it = ctx.query.find("fieldValidation");
    if (it == ctx.query.end()) return FieldValidation::Warn;
    if (it->second == "Strict") return FieldValidation::Strict;
    if (it->second == "Ignore") return FieldValidation::Ignore;
    return FieldValidation::Warn;
}

// The patched object, or why not (`error`, or `failure` for the patch library's own answers).
// `current` is null only for an apply that creates.
std::optional<json::object> patched(HandlerContext& ctx, const json::object* current, ApiError& error,
                                    std::optional<server::Response>& failure, std::vector<std::string>& warnings) {
    auto media = patchMedia(ctx);
    const auto& body = ctx.request.body;
    if (media == "application/apply-patch+yaml") {
        if (auto it = ctx.query.find("fieldManager"); it == ctx.query.end() || it->second.empty()) {
            error = invalid("PatchOptions", "meta.k8s.io", "",
                            {FieldError{"fieldManager", "Required value: is required for apply patch",
                                        ErrorType::Required, ""}});
            return std::nullopt;
        }
        auto config = decodeBody(ctx, error);
        if (!config) return std::nullopt;
        if (auto e = checkIdentity(ctx, *config, ctx.info.name)) {
            error = *e;
            return std::nullopt;
        }
        auto r = serverSideApply(current, *config, fieldManager(ctx), queryFlag(ctx, "force"), nowStamp(ctx),
                                 listShapes(ctx.resource), ctx.resource.statusSubresource, ctx.info.subresource);
        if (!r.ok) {
            json::array causes;
            for (auto const& c : r.conflicts)
                causes.push_back(json::object{{"reason", "FieldManagerConflict"}, {"message", c.cause}, {"field", c.path}});
            Reason reason = r.code == 409 ? Reason::Conflict
                            : r.code == 404 ? Reason::NotFound
                            : r.code >= 500 ? Reason::InternalError
                                            : Reason::BadRequest;
            error = {reason, r.message, causes.empty() ? json::object{} : json::object{{"causes", std::move(causes)}}};
            return std::nullopt;
        }
        return std::move(r.object);
    }
    if (!current) return std::nullopt;
    json::value target = *current;
    auto validation = fieldValidation(ctx);
    PatchResult p;
    if (media == "application/merge-patch+json") p = mergePatch(target, body, validation);
    else if (media == "application/json-patch+json") p = jsonPatch(target, body, validation);
    else if (media == "application/strategic-merge-patch+json")
        p = strategicMergePatch(target, body, ctx.resource.apiVersion(), ctx.resource.kind, ctx.resource.builtin,
                                validation);
    else {
        error = unsupportedPatch(ctx);
        return std::nullopt;
    }
    if (!p.ok) {
        failure = patchFailure(p);
        return std::nullopt;
    }
    warnings.insert(warnings.end(), p.strictErrors.begin(), p.strictErrors.end());
    if (!p.value.is_object()) {
        error = badRequest("the patched document is not an object");
        return std::nullopt;
    }
    return std::move(p.value.as_object());
}

bool isApply(const HandlerContext& ctx) { return patchMedia(ctx) == "application/apply-patch+yaml"; }

}  // namespace

server::Response handlePatch(HandlerContext& ctx) {
    auto key = keyFor(ctx, ctx.info.name);
    for (int attempt = 0;; ++attempt) {
        auto read = ctx.store.get(key);
        // A failed read is not "absent": an apply must not turn into a create.
        if (read.failed()) return errorResponse(internalError(read.message));
        const json::object* current = read.found() ? &read.object : nullptr;
        if (!current && !(isApply(ctx) && ctx.info.subresource.empty()))
            return errorResponse(notFound(ctx.resource.groupResource(), key.name));
        if (!current)
            if (auto e = namespaceReady(ctx)) return errorResponse(*e);
        ApiError error;
        std::optional<server::Response> failure;
        std::vector<std::string> warnings;
        auto next = patched(ctx, current ? &*current : nullptr, error, failure, warnings);
        if (!next) return failure ? *failure : errorResponse(error);
        if (auto e = checkIdentity(ctx, *next, ctx.info.name)) return errorResponse(*e);
        if (ctx.info.subresource == "status") {
            next = withStatusOf(*current, *next);
        } else if (auto e = admitWrite(ctx, *next, current ? &*current : nullptr, warnings)) {
            return errorResponse(*e);
        }
        if (!isApply(ctx))
            recordUpdate(current ? &*current : nullptr, *next, fieldManager(ctx), nowStamp(ctx), listShapes(ctx.resource),
                         ctx.info.subresource);
        if (current) metaOf(*next)["resourceVersion"] = strOf(metaOf(*current), "resourceVersion");
        if (dryRun(ctx)) return objectResponse(ctx, current ? 200 : 201, *next, warnings);
        auto r = current ? writeUpdate(ctx, *next) : ctx.store.create(*next);
        bool raced = (r.status == StoreStatus::Conflict && current) || (r.status == StoreStatus::AlreadyExists && !current);
        if (raced && attempt < kConflictRetries) continue;
        if (!r.ok()) return errorResponse(storeError(ctx, key, r));
        afterWrite(ctx, r.object);
        return objectResponse(ctx, current ? 200 : 201, r.object, warnings);
    }
}

namespace {

// DeleteOptions from the body (JSON) and the query.
std::optional<DeleteOptions> deleteOptions(const HandlerContext& ctx, ApiError& error) {
    DeleteOptions o;
    std::string policy;
    if (!ctx.request.body.empty()) {
        json::value v;
        if (ctx.request.header("content-type").starts_with(kKubernetesProtobufContentType)) {
            auto r = decodeKubernetesProtobuf(ctx.request.body, {"meta.k8s.io/v1", "DeleteOptions"});
            if (!r.ok) {
                error = badRequest("couldn't decode DeleteOptions: " + r.error);
                return std::nullopt;
            }
            v = std::move(r.object);
        } else {
            boost::system::error_code ec;
            v = json::parse(ctx.request.body, ec);
            if (ec || !v.is_object()) {
                error = badRequest("couldn't decode DeleteOptions: " + (ec ? ec.message() : std::string("not an object")));
                return std::nullopt;
            }
        }
        auto const& b = v.as_object();
        policy = strOf(b, "propagationPolicy");
        if (auto* pre = b.if_contains("preconditions"); pre && pre->is_object()) {
            o.uid = strOf(pre->as_object(), "uid");
            o.resourceVersion = strOf(pre->as_object(), "resourceVersion");
        }
        if (auto* orphan = b.if_contains("orphanDependents"); orphan && orphan->is_bool() && orphan->as_bool())
            policy = "Orphan";
    }
    if (auto it = ctx.query.find("propagationPolicy"); it != ctx.query.end()) policy = it->second;
    if (policy.empty() || policy == "Background") o.propagation = Propagation::Background;
    else if (policy == "Foreground") o.propagation = Propagation::Foreground;
    else if (policy == "Orphan") o.propagation = Propagation::Orphan;
    else {
        ErrorList errs{FieldError{"propagationPolicy",
                                  "Unsupported value: \"" + policy +
                                      "\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"",
                                  ErrorType::NotSupported, ""}};
        error = invalid("DeleteOptions", "", "", errs);
        error.message = "DeleteOptions.meta.k8s.io \"\" is invalid: " + joinErrors(errs);
        return std::nullopt;
    }
    return o;
}

// What goes with a deleted object: a CRD's custom resources, a namespace's contents. The store
// failing to list them is the error (nothing of them was deleted), or "".
std::string afterDelete(HandlerContext& ctx, const json::object& deleted) {
    if (isCrd(ctx.resource)) {
        ctx.registry.removeCrd(keyOf(deleted).name);
        auto const& spec = deleted.contains("spec") ? deleted.at("spec").as_object() : json::object{};
        std::string group = strOf(spec, "group");
        std::string kind = spec.contains("names") ? strOf(spec.at("names").as_object(), "kind") : "";
        auto all = ctx.store.listAll();
        if (!all.ok()) return "listing the custom resources of " + keyOf(deleted).name + " to delete: " + *all.error;
        for (auto const& o : all.value) {
            auto k = keyOf(o);
            if (k.kind == kind && k.apiVersion.starts_with(group + "/")) ctx.store.remove(k);
        }
    } else if (isNamespace(ctx.resource)) {
        auto ns = keyOf(deleted).name;
        auto all = ctx.store.listAll();
        if (!all.ok()) return "listing the contents of namespace " + ns + " to delete: " + *all.error;
        for (auto const& o : all.value) {
            auto k = keyOf(o);
            if (k.ns == ns) ctx.store.remove(k);
        }
    }
    return {};
}

json::object deletedStatus(const HandlerContext& ctx, const json::object& obj) {
    json::object d{{"name", keyOf(obj).name}};
    if (!ctx.resource.group.empty()) d["group"] = ctx.resource.group;
    d["kind"] = ctx.resource.plural;
    d["uid"] = strOf(metaOf(obj), "uid");
    return successStatus(std::move(d));
}

}  // namespace

server::Response handleDelete(HandlerContext& ctx) {
    ApiError error;
    auto options = deleteOptions(ctx, error);
    if (!options) return errorResponse(error);
    auto key = keyFor(ctx, ctx.info.name);
    if (dryRun(ctx)) {
        auto current = ctx.store.get(key);
        if (current.failed()) return errorResponse(internalError(current.message));
        if (current.notFound()) return errorResponse(notFound(ctx.resource.groupResource(), key.name));
        return objectResponse(ctx, 200, current.object);
    }
    if (isNamespace(ctx.resource))
        if (auto e = afterDelete(ctx, json::object{{"metadata", json::object{{"name", key.name}}}}); !e.empty())
            return errorResponse(internalError(e));
    auto r = ctx.store.remove(key, *options);
    if (!r.ok()) return errorResponse(storeError(ctx, key, r));
    if (r.pending) return objectResponse(ctx, 200, r.object);
    if (!isNamespace(ctx.resource))
        if (auto e = afterDelete(ctx, r.object); !e.empty()) return errorResponse(internalError(e));
    server::Response res;
    res.contentType = "application/json";
    res.body = json::serialize(deletedStatus(ctx, r.object));
    return res;
}

server::Response handleDeleteCollection(HandlerContext& ctx) {
    ApiError error;
    auto options = deleteOptions(ctx, error);
    if (!options) return errorResponse(error);
    std::optional<LabelSelector> labels;
    std::optional<FieldSelector> fields;
    std::string perr;
    if (auto it = ctx.query.find("labelSelector"); it != ctx.query.end() && !it->second.empty())
        if (!(labels = parseLabelSelector(it->second, perr))) return errorResponse(badRequest(perr));
    if (auto it = ctx.query.find("fieldSelector"); it != ctx.query.end() && !it->second.empty())
        if (!(fields = parseFieldSelector(it->second, ctx.resource.kind, ctx.resource.builtin, perr,
                                          FieldLabelScope{ctx.resource.builtin ? std::optional<std::string>(ctx.resource.group)
                                                                               : std::nullopt,
                                                          ctx.resource.namespaced, {}})))
            return errorResponse(badRequest(perr));
    std::optional<std::string> ns;
    if (ctx.resource.namespaced && ctx.info.hasNamespace) ns = ctx.info.ns;
    json::array deleted;
    static const json::object empty;
    auto revision = ctx.store.revision();  // before the list, as a list's resourceVersion is
    auto listed = revision.ok() ? ctx.store.list(ctx.resource.apiVersion(), ctx.resource.kind, ns)
                                : ListResult::failure(*revision.error);
    if (!listed.ok()) return errorResponse(internalError(*listed.error));
    for (auto const& o : listed.value) {
        auto* l = metaOf(o).if_contains("labels");
        if (labels && !labels->matches(l && l->is_object() ? l->as_object() : empty)) continue;
        if (fields && !fields->matches(o)) continue;
        if (dryRun(ctx)) {
            deleted.push_back(o);
            continue;
        }
        auto r = ctx.store.remove(keyOf(o), *options);
        if (r.ok()) {
            if (auto e = afterDelete(ctx, r.object); !e.empty()) return errorResponse(internalError(e));
            deleted.push_back(r.object);
        } else if (r.status != StoreStatus::NotFound) {
            return errorResponse(storeError(ctx, keyOf(o), r));
        }
    }
    // The revision after the deletes; should that read fail, the one the list was read at (a real
    // revision, older, from which a watch replays the deletes) rather than failing what was done.
    auto now = ctx.store.revision();
    const int64_t after = now.ok() ? now.value : revision.value;
    server::Response res;
    res.contentType = "application/json";
    res.body = json::serialize(json::object{{"apiVersion", ctx.resource.apiVersion()},
                                            {"kind", ctx.resource.kind + "List"},
                                            {"metadata", json::object{{"resourceVersion", std::to_string(after)}}},
                                            {"items", std::move(deleted)}});
    return res;
}

server::Response dispatchVerb(HandlerContext& ctx) {
    using Handler = server::Response (*)(HandlerContext&);
    static const std::pair<std::string_view, Handler> kVerbs[] = {
        {"get", &handleGet},       {"list", &handleList},       {"watch", &handleWatch},
        {"create", &handleCreate}, {"update", &handleUpdate},   {"patch", &handlePatch},
        {"delete", &handleDelete}, {"deletecollection", &handleDeleteCollection},
    };
    bool named = !ctx.info.name.empty();
    if (!ctx.info.subresource.empty() && ctx.info.verb != "get" && ctx.info.verb != "update" && ctx.info.verb != "patch")
        return errorResponse(methodNotSupported());
    if (ctx.info.verb == "create" && named) return errorResponse(methodNotSupported());
    if ((ctx.info.verb == "update" || ctx.info.verb == "patch") && !named) return errorResponse(methodNotSupported());
    if (ctx.resource.namespaced && !ctx.info.hasNamespace &&
        (named || ctx.info.verb == "create" || ctx.info.verb == "deletecollection"))
        return errorResponse(ApiError{Reason::NotFound, "the server could not find the requested resource", {}});
    for (auto const& [verb, handler] : kVerbs)
        if (verb == ctx.info.verb) return handler(ctx);
    return errorResponse(methodNotSupported());
}

}  // namespace trainer::core::apiserver
