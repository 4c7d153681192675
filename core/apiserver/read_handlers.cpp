// get, list (selectors, limit/continue, Tables) and watch.
#include "core/apiserver/handler_support.hpp"
#include "core/apiserver/selectors.hpp"
#include "core/apiserver/watch.hpp"
#include "core/server/webhook.hpp"

#include <charconv>
#include <random>

namespace trainer::core::apiserver {

namespace {

std::optional<int64_t> parseInt(const std::string& s) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

std::string queryValue(const HandlerContext& ctx, const char* name) {
    auto it = ctx.query.find(name);
    return it == ctx.query.end() ? std::string() : it->second;
}

// Selectors of a list or watch; an error answers the request.
struct Selectors {
    std::optional<LabelSelector> labels;
    std::optional<FieldSelector> fields;
    bool matches(const json::object& o) const {
        static const json::object empty;
        auto* labelsValue = metaOf(o).if_contains("labels");
        if (labels && !labels->matches(labelsValue && labelsValue->is_object() ? labelsValue->as_object() : empty))
            return false;
        return !fields || fields->matches(o);
    }
};

std::optional<ApiError> parseSelectors(const HandlerContext& ctx, Selectors& out) {
    std::string error;
    if (auto text = queryValue(ctx, "labelSelector"); !text.empty()) {
        out.labels = parseLabelSelector(text, error);
        if (!out.labels) return badRequest(error);
    }
    if (auto text = queryValue(ctx, "fieldSelector"); !text.empty()) {
        FieldLabelScope scope{ctx.resource.builtin ? std::optional<std::string>(ctx.resource.group) : std::nullopt,
                              ctx.resource.namespaced, {}};
        out.fields = parseFieldSelector(text, ctx.resource.kind, ctx.resource.builtin, error, scope);
        if (!out.fields) return badRequest(error);
    }
    return std::nullopt;
}

std::optional<std::string> scopeNamespace(const HandlerContext& ctx) {
    if (!ctx.resource.namespaced || !ctx.info.hasNamespace) return std::nullopt;
    return ctx.info.ns;
}

// The continue token: the list's resourceVersion and the last key returned, base64 of JSON.
std::string encodeContinue(int64_t rv, const ObjectKey& last) {
    auto text = json::serialize(json::object{{"rv", rv}, {"ns", last.ns}, {"name", last.name}});
    return server::base64Encode(text);
}

struct ContinueToken {
    int64_t rv = 0;
    std::string ns, name;
};

std::optional<ContinueToken> decodeContinue(const std::string& token) {
    auto text = server::base64Decode(token);
    if (!text) return std::nullopt;
    boost::system::error_code ec;
    auto v = json::parse(*text, ec);
    if (ec || !v.is_object()) return std::nullopt;
    auto const& o = v.as_object();
    auto* rv = o.if_contains("rv");
    if (!rv || !rv->is_int64()) return std::nullopt;
    return ContinueToken{rv->as_int64(), strOf(o, "ns"), strOf(o, "name")};
}

json::object listObject(const HandlerContext& ctx, json::array items, int64_t rv, const std::string& cont) {
    json::object meta{{"resourceVersion", std::to_string(rv)}};
    if (!cont.empty()) meta["continue"] = cont;
    return json::object{{"apiVersion", ctx.resource.apiVersion()},
                        {"kind", ctx.resource.kind + "List"},
                        {"metadata", std::move(meta)},
                        {"items", std::move(items)}};
}

server::Response jsonOk(const json::value& v) {
    server::Response r;
    r.contentType = "application/json";
    r.body = json::serialize(v);
    return r;
}

}  // namespace

server::Response handleGet(HandlerContext& ctx) {
    auto key = keyFor(ctx, ctx.info.name);
    auto obj = ctx.store.get(key);
    if (obj.failed()) return errorResponse(internalError(obj.message));  // not a 404: it may exist
    if (obj.notFound()) return errorResponse(notFound(ctx.resource.groupResource(), key.name));
    return objectResponse(ctx, 200, obj.object);
}

server::Response handleList(HandlerContext& ctx) {
    Selectors selectors;
    if (auto err = parseSelectors(ctx, selectors)) return errorResponse(*err);
    int64_t limit = 0;  // 0: everything
    if (auto text = queryValue(ctx, "limit"); !text.empty()) {
        auto parsed = parseInt(text);
        if (!parsed || *parsed < 0) return errorResponse(badRequest("invalid limit: \"" + text + "\""));
        limit = *parsed;
    }
    std::optional<ContinueToken> from;
    if (auto text = queryValue(ctx, "continue"); !text.empty()) {
        from = decodeContinue(text);
        if (!from) return errorResponse(badRequest("continue key is not valid: illegal base64 data or malformed token"));
    }
    int64_t rv = 0;
    if (from) {
        rv = from->rv;
    } else {
        auto revision = ctx.store.revision();
        if (!revision.ok()) return errorResponse(internalError(*revision.error));
        rv = revision.value;
    }
    auto items = ctx.store.list(ctx.resource.apiVersion(), ctx.resource.kind, scopeNamespace(ctx));
    if (!items.ok()) return errorResponse(internalError(*items.error));
    std::vector<json::object> selected;
    std::string cont;
    for (auto& o : items.value) {
        auto k = keyOf(o);
        if (from && std::tie(k.ns, k.name) <= std::tie(from->ns, from->name)) continue;
        if (!selectors.matches(o)) continue;
        if (limit > 0 && static_cast<int64_t>(selected.size()) == limit) {
            cont = encodeContinue(rv, keyOf(selected.back()));
            break;
        }
        selected.push_back(std::move(o));
    }
    if (wantsTable(ctx)) return jsonOk(tableOf(ctx, selected, std::to_string(rv), cont));
    return jsonOk(listObject(ctx, json::array(selected.begin(), selected.end()), rv, cont));
}

server::Response handleWatch(HandlerContext& ctx) {
    Selectors selectors;
    if (auto err = parseSelectors(ctx, selectors)) return errorResponse(*err);
    WatchOptions o;
    o.ns = scopeNamespace(ctx);
    o.labels = selectors.labels;
    o.fields = selectors.fields;
    if (auto rv = queryValue(ctx, "resourceVersion"); !rv.empty() && rv != "0") {
        o.resourceVersion = parseInt(rv);
        if (!o.resourceVersion || *o.resourceVersion < 0)
            return errorResponse(badRequest("invalid resource version: \"" + rv + "\""));
    }
    o.bookmarks = queryFlag(ctx, "allowWatchBookmarks");
    o.bookmarkInterval = ctx.options.bookmarkInterval;
    auto timeout = ctx.options.minRequestTimeout;
    if (auto t = queryValue(ctx, "timeoutSeconds"); !t.empty()) {
        auto v = parseInt(t);
        if (!v || *v < 0) return errorResponse(badRequest("invalid timeoutSeconds: \"" + t + "\""));
        timeout = std::chrono::seconds(*v);
    } else {
        static thread_local std::mt19937 rng{std::random_device{}()};
        timeout += std::chrono::seconds(std::uniform_int_distribution<int64_t>(0, timeout.count())(rng));
    }
    o.now = ctx.options.steadyClock;
    o.deadline = (o.now ? o.now() : std::chrono::steady_clock::now()) + timeout;
    if (wantsTable(ctx)) {
        o.render = [resource = ctx.shared, include = queryValue(ctx, "includeObject"),
                    clock = ctx.options.clock](const json::object& obj, bool first) -> json::value {
            auto now = clock ? clock() : std::chrono::system_clock::now();
            auto t = tableOf(*resource, {obj}, include, strOf(metaOf(obj), "resourceVersion"), "", now);
            if (!first) t["columnDefinitions"] = nullptr;
            return t;
        };
    }
    std::string error;
    auto stream = makeWatchStream(ctx.store, ctx.shared, std::move(o), error);
    if (!stream) return errorResponse(internalError(error));
    server::Response r;
    r.contentType = "application/json";
    r.stream = std::move(stream);
    return r;
}

}  // namespace trainer::core::apiserver
