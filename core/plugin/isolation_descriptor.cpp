// The Described frame's JSON (isolation_descriptor.hpp).
#include "core/plugin/isolation_descriptor.hpp"

#include "core/json/io.hpp"

namespace trainer::core::isolation {

namespace json = boost::json;

std::string describe(const LoadedPlugin& p, bool lifecycle) {
    json::array claims, hooks, watches;
    for (auto const& c : p.claims) claims.emplace_back(c);
    for (auto const& h : kHooks)
        if (p.hooks.has(h.hook)) hooks.emplace_back(h.name);
    for (auto const& w : p.watches)
        watches.push_back(json::object{{"apiVersion", w.apiVersion}, {"kind", w.kind}, {"mode", w.mode},
                                       {"matchField", w.matchField}});
    return json::serialize(json::object{{"name", p.name}, {"version", p.version}, {"description", p.description},
                                        {"abi", p.abi}, {"priority", p.priority}, {"threadSafe", p.threadSafe},
                                        {"claims", std::move(claims)}, {"hooks", std::move(hooks)},
                                        {"watches", std::move(watches)}, {"lifecycle", lifecycle}});
}

namespace {

std::optional<detail::Refusal> violation(const std::string& what) {
    return detail::Refusal{"its plugin-host child sent a malformed descriptor (" + what + ")", "protocol_violation"};
}

const json::string* str(const json::object& o, std::string_view k) {
    auto* v = o.if_contains(k);
    return v && v->is_string() ? &v->get_string() : nullptr;
}

std::optional<detail::Refusal> readStrings(const json::object& o, std::string_view k, std::vector<std::string>& out) {
    auto* v = o.if_contains(k);
    if (!v || !v->is_array()) return violation(std::string(k) + " is not a list");
    for (auto const& e : v->get_array()) {
        if (!e.is_string() || e.get_string().empty()) return violation(std::string(k) + " holds a non-string");
        out.emplace_back(e.get_string());
    }
    return std::nullopt;
}

std::optional<detail::Refusal> readHooks(const json::object& o, LoadedPlugin& p) {
    std::vector<std::string> names;
    if (auto r = readStrings(o, "hooks", names)) return r;
    for (auto const& n : names) {
        bool known = false;
        for (auto const& h : kHooks)
            if (n == h.name && h.hook != Hook::WatchExtension) {
                p.hooks.set(h.hook, nullptr);
                known = true;
            }
        if (!known) return violation("unknown hook " + n);
    }
    return std::nullopt;
}

std::optional<detail::Refusal> readWatches(const json::object& o, LoadedPlugin& p) {
    auto* v = o.if_contains("watches");
    if (!v || !v->is_array()) return violation("watches is not a list");
    for (auto const& e : v->get_array()) {
        auto* w = e.if_object();
        auto* mode = w ? w->if_contains("mode") : nullptr;
        if (!w || !str(*w, "apiVersion") || !str(*w, "kind") || !str(*w, "matchField") || !mode || !mode->is_int64() ||
            mode->get_int64() < TRN_WATCH_OWNED || mode->get_int64() > TRN_WATCH_SUSPENDED_MATCHING)
            return violation("a watch is malformed");
        p.watches.push_back(WatchSpec{std::string(*str(*w, "apiVersion")), std::string(*str(*w, "kind")),
                                      static_cast<int32_t>(mode->get_int64()), std::string(*str(*w, "matchField"))});
    }
    return std::nullopt;
}

}  // namespace

std::optional<detail::Refusal> undescribe(std::string_view text, LoadedPlugin& p, bool& lifecycle) {
    json::value doc;
    std::string err;
    if (!parseJson(text, doc, err) || !doc.is_object()) return violation("not a JSON object");
    auto const& o = doc.get_object();
    auto* abi = o.if_contains("abi");
    auto* prio = o.if_contains("priority");
    auto* ts = o.if_contains("threadSafe");
    auto* lc = o.if_contains("lifecycle");
    if (!str(o, "name") || !str(o, "version") || !str(o, "description") || !abi || !abi->is_int64() || !prio ||
        !prio->is_int64() || !ts || !ts->is_bool() || !lc || !lc->is_bool())
        return violation("a member is missing or has the wrong type");
    p.name = std::string(*str(o, "name"));
    p.version = std::string(*str(o, "version"));
    p.description = std::string(*str(o, "description"));
    p.abi = static_cast<uint32_t>(abi->get_int64());
    p.priority = static_cast<int32_t>(prio->get_int64());
    p.threadSafe = ts->get_bool();
    lifecycle = lc->get_bool();
    if (auto r = readStrings(o, "claims", p.claims)) return r;
    if (auto r = readHooks(o, p)) return r;
    return readWatches(o, p);
}

}  // namespace trainer::core::isolation
