// managedFields entries, decoded and encoded; the contract is in managed_fields.hpp.
#include "core/apiserver/managed_fields.hpp"

#include "core/apiserver/field_manager_go_text.hpp"
#include "core/apiserver/smd_fields_v1.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <tuple>
#include <utility>
#include <vector>

namespace trainer::core::apiserver::smd {

namespace {

std::string decodeEntry(const json::object& item, std::size_t i, Entry& e) {
    e.manager = stringAt(item, "manager");
    e.operation = stringAt(item, "operation");
    e.apiVersion = stringAt(item, "apiVersion");
    e.subresource = stringAt(item, "subresource");
    if (auto const* t = item.if_contains("time"); t && t->is_string()) e.time = std::string(t->get_string());
    if (e.operation != "Apply" && e.operation != "Update") return "operation must be `Apply` or `Update`";
    if (e.apiVersion.empty()) return "apiVersion must not be empty";
    std::string fieldsType = stringAt(item, "fieldsType");
    if (fieldsType.empty()) return "missing fieldsType in managed fields entry " + std::to_string(i);
    if (fieldsType != "FieldsV1")
        return "invalid fieldsType " + goQuote(fieldsType) + " in managed fields entry " + std::to_string(i);
    auto const* fields = item.if_contains("fieldsV1");
    std::string error;
    auto set = fieldsToSet(fields && !fields->is_null() ? *fields : json::value(json::object()), error);
    if (!set) return "error decoding versioned set: error decoding set: " + error;
    e.set = std::move(*set);
    return "";
}

std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = unsigned(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + std::int64_t(doe) - 719468;
}

// sortEncodedManagedFields: operation, time, manager, apiVersion, subresource.
bool entryBefore(const Entry* a, const Entry* b) {
    auto key = [](const Entry* e) {
        return std::make_tuple(std::cref(e->operation), unixSeconds(e->time), std::cref(e->manager),
                               std::cref(e->apiVersion), std::cref(e->subresource));
    };
    return key(a) < key(b);
}

json::object encodeEntry(const Entry& e) {
    json::object o;
    if (!e.manager.empty()) o["manager"] = e.manager;
    o["operation"] = e.operation;
    if (!e.apiVersion.empty()) o["apiVersion"] = e.apiVersion;
    if (e.time) o["time"] = *e.time;
    o["fieldsType"] = "FieldsV1";
    o["fieldsV1"] = setToFields(e.set);
    if (!e.subresource.empty()) o["subresource"] = e.subresource;
    return o;
}

}  // namespace

std::string stringAt(const json::object& o, std::string_view key) {
    auto const* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

const json::object* metadataOf(const json::object& o) {
    auto const* m = o.if_contains("metadata");
    return m && m->is_object() ? &m->get_object() : nullptr;
}

const json::value* managedFieldsOf(const json::object& o) {
    auto const* m = metadataOf(o);
    return m ? m->if_contains("managedFields") : nullptr;
}

std::string identifier(const Entry& e) {
    std::string out;
    auto add = [&](const char* key, std::string_view v) {
        if (!v.empty()) out += (out.empty() ? "" : ",") + goJsonString(key) + ":" + goJsonString(v);
    };
    add("manager", e.manager);
    add("operation", e.operation);
    if (e.operation != "Apply") add("apiVersion", e.apiVersion);
    add("subresource", e.subresource);
    return "{" + out + "}";
}

Decoded decodeManaged(const json::value* mf) {
    Decoded d;
    if (!mf || !mf->is_array()) return d;
    for (auto const& item : mf->get_array())
        if (!item.is_object()) return d;
    std::size_t i = 0;
    for (auto const& item : mf->get_array()) {
        Entry e;
        if (d.error = decodeEntry(item.get_object(), i++, e); !d.error.empty()) return d;
        d.managers[identifier(e)] = std::move(e);
    }
    return d;
}

std::int64_t unixSeconds(const std::optional<std::string>& t) {
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, n = 0;
    if (!t || std::sscanf(t->c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &n) != 6) return 0;
    std::int64_t secs = daysFromCivil(y, unsigned(mo), unsigned(d)) * 86400 + h * 3600 + mi * 60 + s;
    std::string_view rest = std::string_view(*t).substr(std::size_t(n));
    while (!rest.empty() && (rest[0] == '.' || std::isdigit((unsigned char)rest[0]))) rest.remove_prefix(1);
    int oh = 0, om = 0;
    if (rest.size() >= 6 && (rest[0] == '+' || rest[0] == '-') &&
        std::sscanf(std::string(rest.substr(1)).c_str(), "%2d:%2d", &oh, &om) == 2)
        secs -= (rest[0] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    return secs;
}

void encodeManaged(json::object& obj, const Managers& managers) {
    auto* meta = obj.if_contains("metadata");
    if (managers.empty()) {
        if (meta && meta->is_object()) meta->get_object().erase("managedFields");
        return;
    }
    std::vector<const Entry*> entries;
    for (auto const& [id, e] : managers) entries.push_back(&e);
    std::stable_sort(entries.begin(), entries.end(), entryBefore);
    json::array out;
    for (auto const* e : entries) out.push_back(encodeEntry(*e));
    if (!meta || !meta->is_object()) meta = &(obj["metadata"] = json::object());
    meta->get_object()["managedFields"] = std::move(out);
}

Managers decodeLiveOrNew(const json::object* before, const json::object& after, bool isSubresource) {
    auto fromLive = [&] {
        Decoded d = decodeManaged(before ? managedFieldsOf(*before) : nullptr);
        return d.error.empty() ? std::move(d.managers) : Managers{};
    };
    if (isSubresource) return fromLive();
    auto const* mf = managedFieldsOf(after);
    if (mf && mf->is_array()) {
        auto const& a = mf->get_array();
        if (a.empty() || (a.size() == 1 && a[0].is_object() && a[0].get_object().empty())) return {};
    }
    Decoded d = decodeManaged(mf);
    if (!d.error.empty() || d.managers.empty()) return fromLive();
    return std::move(d.managers);
}

}  // namespace trainer::core::apiserver::smd
