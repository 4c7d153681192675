// Value printing, ordering and equality; the contract is in smd_value.hpp.
#include "core/apiserver/smd_value.hpp"

#include "core/apiserver/field_manager_go_text.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::core::apiserver::smd {

namespace {

bool isInt(const json::value& v) { return v.is_int64() || v.is_uint64(); }
bool isNumber(const json::value& v) { return isInt(v) || v.is_double(); }
double asDouble(const json::value& v) {
    return v.is_double() ? v.get_double() : v.is_int64() ? double(v.get_int64()) : double(v.get_uint64());
}

int intCompare(const json::value& a, const json::value& b) {
    auto negative = [](const json::value& v) { return v.is_int64() && v.get_int64() < 0; };
    if (negative(a) != negative(b)) return negative(a) ? -1 : 1;
    if (negative(a)) return cmp3(a.get_int64(), b.get_int64());
    auto u = [](const json::value& v) { return v.is_uint64() ? v.get_uint64() : std::uint64_t(v.get_int64()); };
    return cmp3(u(a), u(b));
}

int arrayCompare(const json::array& l, const json::array& r) {
    for (std::size_t i = 0; i < l.size() && i < r.size(); ++i)
        if (int c = valueCompare(l[i], r[i]); c != 0) return c;
    return cmp3(l.size(), r.size());
}

int objectCompare(const json::object& l, const json::object& r) {
    auto sorted = [](const json::object& o) {
        std::vector<std::pair<std::string_view, const json::value*>> v;
        for (auto const& kv : o) v.emplace_back(kv.key(), &kv.value());
        std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.first < b.first; });
        return v;
    };
    auto a = sorted(l), b = sorted(r);
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (int c = a[i].first.compare(b[i].first); c != 0) return c < 0 ? -1 : 1;
        if (int c = valueCompare(*a[i].second, *b[i].second); c != 0) return c;
    }
    return cmp3(a.size(), b.size());
}

}  // namespace

std::string valueToString(const json::value& v) {
    switch (v.kind()) {
        case json::kind::null: return "null";
        case json::kind::bool_: return v.get_bool() ? "true" : "false";
        case json::kind::int64: return std::to_string(v.get_int64());
        case json::kind::uint64: return std::to_string(v.get_uint64());
        case json::kind::double_: return goFloatV(v.get_double());
        case json::kind::string: return goQuote(v.get_string());
        case json::kind::array: {
            std::string out = "[";
            for (auto const& e : v.get_array()) out += (out.size() > 1 ? "," : "") + valueToString(e);
            return out + "]";
        }
        case json::kind::object: {
            std::string out;
            for (auto const& kv : v.get_object()) out += std::string(kv.key()) + "=" + valueToString(kv.value());
            return out;
        }
    }
    return "{{undefined}}";
}

int valueCompare(const json::value& l, const json::value& r) {
    if (l.is_double() || r.is_double()) {
        if (isNumber(l) && isNumber(r)) return cmp3(asDouble(l), asDouble(r));
        return l.is_double() ? -1 : 1;
    }
    if (isInt(l) || isInt(r)) return isInt(l) && isInt(r) ? intCompare(l, r) : (isInt(l) ? -1 : 1);
    if (l.is_string() || r.is_string())
        return l.is_string() && r.is_string() ? cmp3(std::string_view(l.get_string()), std::string_view(r.get_string()))
                                              : (l.is_string() ? -1 : 1);
    if (l.is_bool() || r.is_bool())
        return l.is_bool() && r.is_bool() ? cmp3(l.get_bool(), r.get_bool()) : (l.is_bool() ? -1 : 1);
    if (l.is_array() || r.is_array())
        return l.is_array() && r.is_array() ? arrayCompare(l.get_array(), r.get_array()) : (l.is_array() ? -1 : 1);
    if (l.is_object() || r.is_object())
        return l.is_object() && r.is_object() ? objectCompare(l.get_object(), r.get_object())
                                              : (l.is_object() ? -1 : 1);
    return 0;  // both null
}

bool valueEquals(const json::value& l, const json::value& r) {
    if (l.is_double() || r.is_double()) return isNumber(l) && isNumber(r) && asDouble(l) == asDouble(r);
    if (isInt(l) || isInt(r)) return isInt(l) && isInt(r) && intCompare(l, r) == 0;
    if (l.kind() != r.kind()) return false;
    if (l.is_array()) {
        auto const &a = l.get_array(), &b = r.get_array();
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!valueEquals(a[i], b[i])) return false;
        return true;
    }
    if (l.is_object()) {
        auto const &a = l.get_object(), &b = r.get_object();
        if (a.size() != b.size()) return false;
        for (auto const& kv : a) {
            auto const* o = b.if_contains(kv.key());
            if (!o || !valueEquals(kv.value(), *o)) return false;
        }
        return true;
    }
    return l == r;
}

}  // namespace trainer::core::apiserver::smd
