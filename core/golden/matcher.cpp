#include "core/golden/matcher.hpp"

#include "core/golden/field_path.hpp"

#include <trainer/quantity.hpp>

#include <algorithm>
#include <map>

namespace trainer::core::golden {

std::string_view listKeyOf(std::string_view member) {
    for (auto const& l : kKeyedLists)
        if (l.member == member) return l.key;
    return {};
}

namespace {

bool isQuantityMember(std::string_view member) {
    return std::find(kQuantityMembers.begin(), kQuantityMembers.end(), member) != kQuantityMembers.end();
}

bool isString(const json::value& v, std::string_view s) { return v.is_string() && v.get_string() == s; }

// Missing, null, "", [] or {}: what "<absent>" accepts.
bool isAbsent(const json::value* v) {
    return !v || v->is_null() || (v->is_string() && v->get_string().empty()) || (v->is_array() && v->get_array().empty()) ||
           (v->is_object() && v->get_object().empty());
}

bool isAbsentElement(const json::value& e) {
    auto* o = e.if_object();
    auto* mark = o ? o->if_contains(kAbsentElement) : nullptr;
    return mark && mark->is_bool() && mark->get_bool();
}

// A non-empty list of "$absent" elements asserts absences only: a missing list holds them.
bool onlyAbsentElements(const json::value& v) {
    return v.is_array() && !v.get_array().empty() &&
           std::all_of(v.get_array().begin(), v.get_array().end(), isAbsentElement);
}

// The key of the list `exp` held by `member` when it is matched by key: every element an
// object carrying it.
std::string_view keyFor(std::string_view member, const json::array& exp) {
    std::string_view key = listKeyOf(member);
    if (key.empty()) return {};
    for (auto const& e : exp)
        if (!e.is_object() || !e.get_object().contains(key)) return {};
    return key;
}

bool isNumber(const json::value& v) { return v.is_int64() || v.is_uint64() || v.is_double(); }

long double numberOf(const json::value& v) {
    if (v.is_int64()) return static_cast<long double>(v.get_int64());
    if (v.is_uint64()) return static_cast<long double>(v.get_uint64());
    return static_cast<long double>(v.get_double());
}

// By value: 1 == 1.0; integers exactly, across int64 and uint64.
bool numbersEqual(const json::value& a, const json::value& b) {
    if (a.is_double() || b.is_double()) return numberOf(a) == numberOf(b);
    if (a.is_int64() && b.is_int64()) return a.get_int64() == b.get_int64();
    if (a.is_uint64() && b.is_uint64()) return a.get_uint64() == b.get_uint64();
    const json::value& s = a.is_int64() ? a : b;  // one int64, one uint64
    const json::value& u = a.is_int64() ? b : a;
    return s.get_int64() >= 0 && static_cast<uint64_t>(s.get_int64()) == u.get_uint64();
}

class Matcher {
public:
    std::vector<Mismatch> out;

    void value(const json::value& exp, const json::value& act, const std::string& path, std::string_view member,
               bool quantity) {
        if (isString(exp, kAny)) {
            if (act.is_null()) add(path, "expected a value, found none");
        } else if (exp.is_object()) {
            object(exp.get_object(), act, path, quantity);
        } else if (exp.is_array()) {
            list(exp.get_array(), act, path, member);
        } else {
            scalar(exp, act, path, quantity);
        }
    }

private:
    void add(const std::string& path, std::string message) { out.push_back(Mismatch{path, std::move(message)}); }

    void object(const json::object& exp, const json::value& act, const std::string& path, bool quantity) {
        if (!act.is_object()) return add(path, "expected an object, found " + shortJson(act));
        const json::object& a = act.get_object();
        for (auto const& [k, ev] : exp) {
            const std::string sub = memberPath(path, k);
            const json::value* av = a.if_contains(k);
            if (isString(ev, kAbsent)) {
                if (!isAbsent(av)) add(sub, "expected absent, found " + shortJson(*av));
                continue;
            }
            if (!av) {
                if (!onlyAbsentElements(ev)) add(sub, "missing");
                continue;
            }
            value(ev, *av, sub, k, quantity || isQuantityMember(k));
        }
    }

    void list(const json::array& exp, const json::value& act, const std::string& path, std::string_view member) {
        if (!act.is_array()) return add(path, "expected a list, found " + shortJson(act));
        const json::array& a = act.get_array();
        if (auto key = keyFor(member, exp); !key.empty()) return keyed(exp, a, key, path);
        if (exp.size() != a.size())
            return add(path, "expected " + std::to_string(exp.size()) + " items, found " + std::to_string(a.size()) +
                                 ": " + shortJson(act, 160));
        for (std::size_t i = 0; i < exp.size(); ++i) value(exp[i], a[i], indexPath(path, i), "", false);
    }

    void keyed(const json::array& exp, const json::array& act, std::string_view key, const std::string& path) {
        std::map<std::string, const json::value*> byKey;  // the first actual element per key value
        for (auto const& e : act)
            if (auto* k = e.is_object() ? e.get_object().if_contains(key) : nullptr) byKey.emplace(json::serialize(*k), &e);
        for (auto const& e : exp) {
            const json::value& kv = e.get_object().at(key);
            const std::string sub = keyedPath(path, key, kv);
            auto it = byKey.find(json::serialize(kv));
            if (isAbsentElement(e)) {
                if (it != byKey.end()) add(sub, "expected no such element");
                continue;
            }
            if (it == byKey.end()) {
                add(sub, "missing");
                continue;
            }
            json::object want = e.get_object();
            want.erase(kAbsentElement);
            value(want, *it->second, sub, "", false);
        }
    }

    void scalar(const json::value& exp, const json::value& act, const std::string& path, bool quantity) {
        if (quantity) {
            auto qe = sdk::Quantity::fromJson(exp), qa = sdk::Quantity::fromJson(act);
            if (qe && qa) {
                if (!(*qe == *qa)) add(path, "expected quantity " + shortJson(exp) + ", found " + shortJson(act));
                return;
            }
        }
        bool equal = isNumber(exp) && isNumber(act) ? numbersEqual(exp, act) : exp == act;
        if (!equal) add(path, "expected " + shortJson(exp) + ", found " + shortJson(act));
    }
};

void checkWalk(const json::value& v, const std::string& path, std::string_view member, bool keyedElement,
               Diagnostics& d) {
    if (auto* o = v.if_object()) {
        for (auto const& [k, ev] : *o) {
            const std::string sub = memberPath(path, k);
            if (k == kAbsentElement) {
                if (!keyedElement)
                    d.add(sub, "\"$absent\" marks an element of a keyed list (one whose elements all carry its key, "
                               "such as env by name); here it would be compared as an ordinary member");
                else if (!(ev.is_bool() && ev.get_bool()))
                    d.add(sub, "must be true (or left out)");
                continue;
            }
            checkWalk(ev, sub, k, false, d);
        }
        return;
    }
    auto* a = v.if_array();
    if (!a) return;
    const std::string_view key = keyFor(member, *a);
    for (std::size_t i = 0; i < a->size(); ++i) {
        const json::value& e = (*a)[i];
        const std::string sub = key.empty() ? indexPath(path, i) : keyedPath(path, key, e.get_object().at(key));
        if (isString(e, kAbsent))
            d.add(sub, "\"<absent>\" is the value of an object member that must be missing; for a list element "
                       "write {\"<key>\": ..., \"$absent\": true} in a keyed list");
        checkWalk(e, sub, "", !key.empty(), d);
    }
}

}  // namespace

std::vector<Mismatch> matchSubset(const json::value& expected, const json::value& actual, const std::string& path) {
    Matcher m;
    m.value(expected, actual, path, "", false);
    return std::move(m.out);
}

Diagnostics checkDirectives(const json::value& expected, const std::string& path) {
    Diagnostics d;
    checkWalk(expected, path, "", false, d);
    return d;
}

}  // namespace trainer::core::golden
