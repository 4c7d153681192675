#include "core/api/schema.hpp"

#include "core/api/dns_names.hpp"
#include "core/api/known_patterns.hpp"
#include "core/api/lazy_field_path.hpp"

#include "core/api/crd_schemas.hpp"
#include "core/json/io.hpp"
#include "core/json/lent_value.hpp"

#include <algorithm>
#include <charconv>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace trainer::core {

namespace {

// ---- embedded schemas ----

struct Crds {
    json::object info[3];
};

const Crds& crds() {
    static const Crds c = [] {
        Crds out;
        const char* plurals[3] = {"trainjobs", "trainingruntimes", "clustertrainingruntimes"};
        for (int i = 0; i < 3; ++i) {
            boost::system::error_code ec;
            json::parse_options opts;
            opts.max_depth = 10000;  // schemas nest far deeper than Boost.JSON's default 32
            auto v = json::parse(embeddedCrd(plurals[i]), ec, {}, opts);
            if (!ec && v.is_object()) out.info[i] = std::move(v.as_object());
        }
        return out;
    }();
    return c;
}

const json::object* obj(const json::object& o, std::string_view k) {
    auto it = o.find(k);
    return it != o.end() && it->value().is_object() ? &it->value().get_object() : nullptr;
}
const json::array* arr(const json::object& o, std::string_view k) {
    auto it = o.find(k);
    return it != o.end() && it->value().is_array() ? &it->value().get_array() : nullptr;
}
std::string_view str(const json::object& o, std::string_view k) {
    auto it = o.find(k);
    return it != o.end() && it->value().is_string() ? std::string_view(it->value().get_string()) : std::string_view();
}
bool flag(const json::object& o, std::string_view k) {
    auto it = o.find(k);
    return it != o.end() && it->value().is_bool() && it->value().get_bool();
}
const json::value* member(const json::object* o, std::string_view k) {
    if (!o) return nullptr;
    auto it = o->find(k);
    return it == o->end() || it->value().is_null() ? nullptr : &it->value();
}
const json::value* member(const json::value* v, std::string_view k) {
    return member(v && v->is_object() ? &v->get_object() : nullptr, k);
}
bool present(const json::object& o, std::string_view k) {
    auto it = o.find(k);
    return it != o.end() && !it->value().is_null();
}

std::string mapKey(const std::string& path, std::string_view k) { return path + "[" + std::string(k) + "]"; }

std::optional<double> number(const json::value& v) {
    if (v.is_int64()) return static_cast<double>(v.get_int64());
    if (v.is_uint64()) return static_cast<double>(v.get_uint64());
    if (v.is_double()) return v.get_double();
    return std::nullopt;
}
bool isInteger(const json::value& v) {
    if (v.is_int64() || v.is_uint64()) return true;
    return v.is_double() && std::isfinite(v.get_double()) && std::floor(v.get_double()) == v.get_double();
}

// Equality as CEL sees JSON: numbers by value, objects by members regardless of order.
bool deepEqual(const json::value& a, const json::value& b) {
    auto na = number(a), nb = number(b);
    if (na && nb) return *na == *nb;
    if (a.kind() != b.kind()) return false;
    if (a.is_object()) {
        auto const& oa = a.get_object();
        auto const& ob = b.get_object();
        if (oa.size() != ob.size()) return false;
        for (auto const& kv : oa) {
            auto it = ob.find(kv.key());
            if (it == ob.end() || !deepEqual(kv.value(), it->value())) return false;
        }
        return true;
    }
    if (a.is_array()) {
        auto const& xa = a.get_array();
        auto const& xb = b.get_array();
        if (xa.size() != xb.size()) return false;
        for (std::size_t i = 0; i < xa.size(); ++i)
            if (!deepEqual(xa[i], xb[i])) return false;
        return true;
    }
    return a == b;
}

// Appends a text equal for two values exactly when deepEqual holds: numbers by their double
// value ("n1.5"), strings by length and bytes ("s5:hello"), object members sorted by key, and
// null, true and false as JSON spells them. Lets uniqueness checks use a hash set.
void appendCanonical(std::string& out, std::string_view s) {
    out += 's';
    out += std::to_string(s.size());
    out += ':';
    out += s;
}
void appendCanonical(std::string& out, const json::value& v) {
    if (auto n = number(v)) {
        char buf[64];
        auto r = std::to_chars(buf, buf + sizeof buf, *n);
        out += 'n';
        out.append(buf, r.ptr);
    } else if (v.is_string()) {
        appendCanonical(out, std::string_view(v.get_string()));
    } else if (v.is_object()) {
        std::vector<std::pair<std::string_view, const json::value*>> members;
        for (auto const& kv : v.get_object()) members.emplace_back(kv.key(), &kv.value());
        std::sort(members.begin(), members.end(), [](auto const& a, auto const& b) { return a.first < b.first; });
        out += '{';
        for (auto const& [k, m] : members) {
            appendCanonical(out, k);
            out += ':';
            appendCanonical(out, *m);
            out += ',';
        }
        out += '}';
    } else if (v.is_array()) {
        out += '[';
        for (auto const& x : v.get_array()) {
            appendCanonical(out, x);
            out += ',';
        }
        out += ']';
    } else {
        out += v.is_null() ? "null" : v.get_bool() ? "true" : "false";
    }
}
std::string canonicalKey(const json::value& v) {
    std::string out;
    appendCanonical(out, v);
    return out;
}

// The JSON type name go-openapi prints in type errors.
std::string_view typeName(const json::value& v) {
    switch (v.kind()) {
        case json::kind::object: return "object";
        case json::kind::array: return "array";
        case json::kind::string: return "string";
        case json::kind::bool_: return "boolean";
        case json::kind::null: return "null";
        case json::kind::double_: return isInteger(v) ? "integer" : "number";
        default: return "integer";
    }
}

// A value as the API server prints it after "Invalid value: ".
std::string shown(const json::value& v) {
    if (v.is_object() || v.is_array()) return "\"" + std::string(typeName(v)) + "\"";
    if (v.is_double() && isInteger(v) && std::fabs(v.get_double()) < 9223372036854775808.0)  // in int64's range
        return std::to_string(static_cast<long long>(v.get_double()));
    if (v.is_string() && v.get_string().size() > kMaxEchoBytes) return json::serialize(json::string(quoteForError(v.get_string())));
    return json::serialize(v);
}

// Length in characters (UTF-8 code points), as Go's utf8.RuneCountInString.
std::size_t charCount(std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

// Compiled regexes, shared; patterns come from the schemas (Go RE2 syntax, ECMAScript-compatible here).
// The CRDs' own patterns are matched by code (core/api/known_patterns.hpp).
bool searchPattern(const std::string& pattern, const std::string& s) {
    // std::regex recurses per character; huge inputs would exhaust the stack. No schema pattern
    // or CEL regex here can reasonably match such a string, so it simply fails to match.
    if (s.size() > 8192) return false;
    if (PatternMatcher known = knownPattern(pattern)) return known(s);
    static std::mutex mu;
    static std::map<std::string, std::optional<std::regex>> cache;
    std::optional<std::regex>* re;
    {
        std::lock_guard lock(mu);
        auto it = cache.find(pattern);
        if (it == cache.end()) {
            std::optional<std::regex> compiled;
            try {
                compiled.emplace(pattern, std::regex::ECMAScript);
            } catch (const std::regex_error&) {
            }
            it = cache.emplace(pattern, std::move(compiled)).first;
        }
        re = &it->second;
    }
    return !*re || std::regex_search(s, **re);
}

// ---- CEL: every rule string in the trainer CRDs, as a C++ predicate ----

// Returns true when the rule holds. `oldSelf` is non-null only for transition rules on UPDATE.
using CelPredicate = std::function<bool(const json::value& self, const json::value* oldSelf)>;

struct CelRule {
    std::string_view rule;
    bool transition;  // references oldSelf: only evaluated on UPDATE when the old value exists
    CelPredicate holds;
};

bool intAtLeastOne(const json::value& self, const json::value*) {
    auto n = number(self);
    return !n || *n >= 1;
}

const std::vector<CelRule>& celTable() {
    static const std::vector<CelRule> table = {
        {"self == oldSelf", true, [](const json::value& s, const json::value* o) { return !o || deepEqual(s, *o); }},
        {"self >= 1", false, intAtLeastOne},
        {"self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')", false,
         [](const json::value& s, const json::value*) {
             if (!s.is_string()) return true;
             std::string v(s.get_string());
             return v.empty() || searchPattern("^[A-Za-z][A-Za-z0-9+.-]*://.+$", v);
         }},
        {"self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']", false,
         [](const json::value& s, const json::value*) {
             return !s.is_string() || s.get_string() == "trainer.kubeflow.org/trainjob-controller" ||
                    s.get_string() == "kueue.x-k8s.io/multikueue";
         }},
        {"has(self.lastUpdatedTime)", false,
         [](const json::value& s, const json::value*) { return !s.is_object() || present(s.get_object(), "lastUpdatedTime"); }},
        {"self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')", false,
         [](const json::value& s, const json::value*) {
             auto name = member(member(&s, "metadata"), "name");
             return !name || !name->is_string() || searchPattern("^[a-z]([-a-z0-9]*[a-z0-9])?$", std::string(name->get_string()));
         }},
        {"size(self.metadata.name) <= 63", false,
         [](const json::value& s, const json::value*) {
             auto name = member(member(&s, "metadata"), "name");
             return !name || !name->is_string() || charCount(name->get_string()) <= 63;
         }},
        {"!self.exists(c, c == 'node')", false,
         [](const json::value& s, const json::value*) {
             if (!s.is_array()) return true;
             for (auto const& c : s.get_array())
                 if (c.is_string() && c.get_string() == "node") return false;
             return true;
         }},
        {"!(has(self.startupPolicy) && self.startupPolicy.startupPolicyOrder == 'InOrder' && "
         "self.replicatedJobs.exists(x, has(x.dependsOn)))",
         false,
         [](const json::value& s, const json::value*) {
             auto order = member(member(&s, "startupPolicy"), "startupPolicyOrder");
             if (!order || !order->is_string() || order->get_string() != "InOrder") return true;
             auto jobs = member(&s, "replicatedJobs");
             if (!jobs || !jobs->is_array()) return true;
             for (auto const& j : jobs->get_array())
                 if (member(&j, "dependsOn")) return false;
             return true;
         }},
        {"self.templates.all(t, !has(t.metadata.namespace) || size(t.metadata.namespace) == 0)", false,
         [](const json::value& s, const json::value*) {
             auto templates = member(&s, "templates");
             if (!templates || !templates->is_array()) return true;
             for (auto const& t : templates->get_array()) {
                 auto ns = member(member(&t, "metadata"), "namespace");
                 if (ns && ns->is_string() && !ns->get_string().empty()) return false;
             }
             return true;
         }},
    };
    return table;
}

// The CEL shape `[has(self.a), has(self.b), ...].filter(x, x).size() <= N` ("at most N of these
// members are set"), evaluated for whatever member names the rule lists. The mlPolicy one-of
// rule has this shape; its member names live in the CRD, not in this code.
std::optional<CelRule> atMostNSetRule(std::string_view rule) {
    static const std::regex shape(R"(^\[((?:\s*has\(self\.[A-Za-z0-9_]+\)\s*,?)+)\]\.filter\(x, x\)\.size\(\) <= (\d+)$)");
    static const std::regex member(R"(has\(self\.([A-Za-z0-9_]+)\))");
    std::string text(rule);
    std::smatch m;
    if (!std::regex_match(text, m, shape)) return std::nullopt;
    std::vector<std::string> names;
    std::string list = m[1].str();
    for (std::sregex_iterator it(list.begin(), list.end(), member), end; it != end; ++it) names.push_back((*it)[1].str());
    long limit = std::stol(m[2].str());
    return CelRule{rule, false, [names, limit](const json::value& s, const json::value*) {
                       if (!s.is_object()) return true;
                       long n = 0;
                       for (auto const& k : names) n += present(s.get_object(), k);
                       return n <= limit;
                   }};
}

const CelRule* findCel(std::string_view rule) {
    for (auto const& r : celTable())
        if (r.rule == rule) return &r;
    static std::mutex mu;
    static std::map<std::string, CelRule, std::less<>> shaped;
    std::lock_guard lock(mu);
    if (auto it = shaped.find(rule); it != shaped.end()) return &it->second;
    auto r = atMostNSetRule(rule);
    if (!r) return nullptr;
    auto it = shaped.emplace(std::string(rule), *r).first;
    it->second.rule = it->first;
    return &it->second;
}

// ---- validation ----

// Objects whose undeclared members are plugin-defined policies (see checkObject).
constexpr std::array<std::string_view, 2> kPluginExtensible{"spec.mlPolicy", "spec.podGroupPolicy"};
bool pluginExtensible(const std::string& path) {
    return std::find(kPluginExtensible.begin(), kPluginExtensible.end(), path) != kPluginExtensible.end();
}

// The properties of a `properties` node that have a default, in the schema's order.
using Defaulted = std::vector<std::pair<std::string_view, const json::value*>>;

Defaulted defaultedOf(const json::object& props) {
    Defaulted out;
    for (auto const& p : props)
        if (p.value().is_object())
            if (auto def = p.value().get_object().find("default"); def != p.value().get_object().end())
                out.emplace_back(p.key(), &def->value());
    return out;
}

// The keywords of one schema node, looked up once: validation consults a dozen of them at every
// node of every object it checks (keywordsOf).
struct Keywords {
    std::string_view type, format, pattern, listType;
    bool nullable = false, intOrString = false, preserveUnknown = false;
    // Present whatever their type; the checks apply those that are numbers.
    const json::value *maxLength = nullptr, *minLength = nullptr, *minimum = nullptr, *maximum = nullptr;
    const json::value *maxItems = nullptr, *minItems = nullptr, *minProperties = nullptr;
    const json::value* additional = nullptr;  // additionalProperties
    const json::array *enumValues = nullptr, *required = nullptr, *listMapKeys = nullptr, *rules = nullptr;
    const json::object *properties = nullptr, *items = nullptr;
    Defaulted defaulted;  // the properties with a default, for defaulting (defaultMembers)

    static Keywords of(const json::object& s) {
        Keywords k;
        k.type = str(s, "type");
        k.format = str(s, "format");
        k.pattern = str(s, "pattern");
        k.listType = str(s, "x-kubernetes-list-type");
        k.nullable = flag(s, "nullable");
        k.intOrString = flag(s, "x-kubernetes-int-or-string");
        k.preserveUnknown = flag(s, "x-kubernetes-preserve-unknown-fields");
        auto at = [&](std::string_view key) { return s.if_contains(key); };
        k.maxLength = at("maxLength");
        k.minLength = at("minLength");
        k.minimum = at("minimum");
        k.maximum = at("maximum");
        k.maxItems = at("maxItems");
        k.minItems = at("minItems");
        k.minProperties = at("minProperties");
        k.additional = at("additionalProperties");
        k.enumValues = arr(s, "enum");
        k.required = arr(s, "required");
        k.listMapKeys = arr(s, "x-kubernetes-list-map-keys");
        k.rules = arr(s, "x-kubernetes-validations");
        k.properties = obj(s, "properties");
        k.items = obj(s, "items");
        if (k.properties) k.defaulted = defaultedOf(*k.properties);
        return k;
    }
};

// The keywords of a node of the embedded schemas (crds(): parsed once, never changed or freed,
// the only schemas Validator and applyDefaults walk), read on a thread's first visit to the node and remembered by
// its address. Per thread: no lock on the webhook's workers; a few hundred nodes each.
const Keywords& keywordsOf(const json::object& s) {
    thread_local std::unordered_map<const json::object*, Keywords> cache;
    auto [it, added] = cache.try_emplace(&s);
    if (added) it->second = Keywords::of(s);
    return it->second;
}

// Checks objects against the embedded schemas only (crdSchema): keywordsOf remembers their nodes
// by address.
struct Validator {
    Diagnostics& d;

    void error(std::string path, std::string message, ErrorType type = ErrorType::Invalid) { d.add(std::move(path), std::move(message), type); }

    static std::string inBody(const LazyFieldPath& path) {
        std::string p = path.str();
        return p.empty() ? std::string("body") : p + " in body";
    }

    bool checkType(const json::value& v, const Keywords& s, const LazyFieldPath& path) {
        if (s.intOrString) {
            if (v.is_string() || isInteger(v)) return true;
            error(path.str(), "Invalid value: \"" + std::string(typeName(v)) + "\": " + inBody(path) +
                            " must be of type integer or string: \"" + std::string(typeName(v)) + "\"",
                  ErrorType::TypeInvalid);
            return false;
        }
        std::string_view t = s.type;
        if (t.empty()) return true;
        bool ok = (t == "object" && v.is_object()) || (t == "array" && v.is_array()) || (t == "string" && v.is_string()) ||
                  (t == "boolean" && v.is_bool()) || (t == "integer" && isInteger(v)) || (t == "number" && number(v));
        if (!ok)
            error(path.str(), "Invalid value: \"" + std::string(typeName(v)) + "\": " + inBody(path) + " must be of type " +
                            std::string(t) + ": \"" + std::string(typeName(v)) + "\"",
                  ErrorType::TypeInvalid);
        return ok;
    }

    void checkFormat(const json::value& v, const Keywords& s, const LazyFieldPath& path) {
        std::string_view f = s.format;
        if (f == "int32" && isInteger(v)) {
            auto n = *number(v);
            if (n < -2147483648.0 || n > 2147483647.0)
                error(path.str(), "Invalid value: " + shown(v) + ": " + inBody(path) + " must fit in a 32-bit integer");
        } else if (f == "date-time" && v.is_string()) {
            if (!isRfc3339(v.get_string()))
                error(path.str(), "Invalid value: " + shown(v) + ": " + inBody(path) + " must be of type date-time: " + shown(v));
        }
    }

    void checkEnum(const json::value& v, const Keywords& s, const LazyFieldPath& path) {
        auto e = s.enumValues;
        if (!e) return;
        for (auto const& x : *e)
            if (deepEqual(x, v)) return;
        std::string supported;
        for (auto const& x : *e) supported += (supported.empty() ? "" : ", ") + json::serialize(x);
        error(path.str(), "Unsupported value: " + shown(v) + ": supported values: " + supported, ErrorType::NotSupported);
    }

    void checkString(const json::string& v, const Keywords& s, const LazyFieldPath& path) {
        std::size_t n = charCount(v);
        if (auto it = s.maxLength; it && number(*it) && n > *number(*it))
            error(path.str(), "Too long: may not be longer than " + shown(*it), ErrorType::TooLong);
        if (auto it = s.minLength; it && number(*it) && n < *number(*it))
            error(path.str(), "Invalid value: " + shown(json::value(v)) + ": " + inBody(path) + " should be at least " +
                            shown(*it) + " chars long");
        if (auto p = s.pattern; !p.empty() && !searchPattern(std::string(p), std::string(v)))
            error(path.str(), "Invalid value: " + shown(json::value(v)) + ": " + inBody(path) + " should match '" + std::string(p) + "'");
    }

    void checkNumber(const json::value& v, const Keywords& s, const LazyFieldPath& path) {
        double n = *number(v);
        if (auto it = s.minimum; it && number(*it) && n < *number(*it))
            error(path.str(), "Invalid value: " + shown(v) + ": " + inBody(path) + " should be greater than or equal to " + shown(*it));
        if (auto it = s.maximum; it && number(*it) && n > *number(*it))
            error(path.str(), "Invalid value: " + shown(v) + ": " + inBody(path) + " should be less than or equal to " + shown(*it));
    }

    // The list-map identity of an object item (its key members), or null.
    static json::value mapIdentity(const json::value& item, const json::array& keys) {
        if (!item.is_object()) return nullptr;
        json::object id;
        for (auto const& k : keys)
            if (k.is_string())
                if (auto m = member(&item, k.get_string())) id[k.get_string()] = *m;
        return id;
    }

    // canonicalKey(mapIdentity(item, keys)) in effect, without building the identity object (a
    // copy of every key member per item, then a sort): each key's member, canonical, in `keys`
    // order (the same for every item of the list), "-" where mapIdentity has no member. Two items'
    // texts are equal exactly when their identities are.
    static std::string identityKey(const json::value& item, const json::array& keys) {
        std::string out;
        for (auto const& k : keys) {
            if (!k.is_string()) continue;
            if (const json::value* m = member(&item, k.get_string())) appendCanonical(out, *m);
            else out += '-';
            out += ',';
        }
        return out;
    }

    // The old list's items by canonical list-map identity (first wins), for transition rules:
    // built once per list so correlating every item is linear, not quadratic.
    static std::unordered_map<std::string, const json::value*> oldItemsById(const json::value* oldList,
                                                                           const json::array* keys) {
        std::unordered_map<std::string, const json::value*> out;
        if (!oldList || !oldList->is_array() || !keys) return out;
        for (auto const& o : oldList->get_array())
            if (o.is_object()) out.emplace(identityKey(o, *keys), &o);
        return out;
    }

    void checkArray(const json::array& a, const json::value* old, const Keywords& s, const LazyFieldPath& path) {
        if (auto it = s.maxItems; it && number(*it) && a.size() > *number(*it))
            error(path.str(), "Too many: " + std::to_string(a.size()) + ": must have at most " + shown(*it) + " items",
                  ErrorType::TooMany);
        if (auto it = s.minItems; it && number(*it) && a.size() < *number(*it))
            error(path.str(), "Invalid value: " + std::to_string(a.size()) + ": " + inBody(path) + " should have at least " +
                            shown(*it) + " items");
        std::string_view listType = s.listType;
        const json::array* keys = listType == "map" ? s.listMapKeys : nullptr;
        std::unordered_set<std::string> seen;  // canonical identities: linear, not pairwise deepEqual
        for (std::size_t i = 0; a.size() > 1 && i < a.size(); ++i) {  // one item has no duplicate
            const bool byKeys = keys && a[i].is_object();
            if (!byKeys && (listType != "set" || a[i].is_null())) continue;
            if (!seen.insert(byKeys ? identityKey(a[i], *keys) : canonicalKey(a[i])).second)
                error(path[i].str(), "Duplicate value: " + json::serialize(byKeys ? mapIdentity(a[i], *keys) : a[i]),
                      ErrorType::Duplicate);
        }
        auto items = s.items;
        if (!items) return;
        auto olds = oldItemsById(old, keys);
        for (std::size_t i = 0; i < a.size(); ++i) {
            const json::value* before = nullptr;
            if (keys && !olds.empty() && a[i].is_object())
                if (auto it = olds.find(identityKey(a[i], *keys)); it != olds.end()) before = it->second;
            validate(a[i], before, *items, path[i], false);
        }
    }

    void checkObject(const json::object& o, const json::object* old, const Keywords& s, const LazyFieldPath& path, bool root) {
        if (auto it = s.minProperties; it && number(*it) && o.size() < *number(*it))
            error(path.str(), "Invalid value: " + std::to_string(o.size()) + ": " + inBody(path) + " should have at least " +
                            shown(*it) + " properties");
        if (auto req = s.required)
            for (auto const& r : *req)
                if (r.is_string() && !present(o, r.get_string()))
                    error(LazyFieldPath::member(path, r.get_string()).str(), "Required value", ErrorType::Required);
        auto props = s.properties;
        const json::value* additional = s.additional;
        bool preserve = s.preserveUnknown;
        for (auto const& kv : o) {
            if (root && kv.key() == "metadata") continue;  // ObjectMeta: checked by validateMeta
            const json::object* ps = props ? obj(*props, kv.key()) : nullptr;
            if (ps) {
                if (kv.value().is_null() && !flag(*ps, "nullable")) continue;  // pruned by the API server
                validate(kv.value(), member(old, kv.key()), *ps, LazyFieldPath::member(path, kv.key()), false);
            } else if (additional && additional->is_object()) {
                validate(kv.value(), member(old, kv.key()), additional->get_object(), LazyFieldPath::entry(path, kv.key()), false);
            } else if (pluginExtensible(path.str())) {
                // Plugins add policies here (mlPolicy.<x>, podGroupPolicy.<x>); the host checks each
                // against the loaded plugins' claims, so an undeclared member is a policy, not a typo.
                if (!kv.value().is_object())
                    error(LazyFieldPath::member(path, kv.key()).str(),
                          "Invalid value: must be an object (the configuration of policy " + std::string(kv.key()) + ")");
            } else if (!preserve && !(additional && additional->is_bool() && additional->get_bool())) {
                // The API server silently prunes undeclared fields; we reject them instead so that a typo
                // (`numNode:`) is caught rather than quietly dropped.
                error(LazyFieldPath::member(path, kv.key()).str(), "field not declared in schema");
            }
        }
    }

    void checkCel(const json::value& v, const json::value* old, const Keywords& s, const LazyFieldPath& path) {
        auto rules = s.rules;
        if (!rules) return;
        for (auto const& r : *rules) {
            if (!r.is_object()) continue;
            std::string_view rule = str(r.get_object(), "rule");
            auto impl = findCel(rule);
            if (!impl) {
                error(path.str(), "internal error: CEL rule not implemented: " + std::string(rule), ErrorType::Internal);
                continue;
            }
            if (impl->transition && !old) continue;
            if (impl->holds(v, impl->transition ? old : nullptr)) continue;
            std::string_view message = str(r.get_object(), "message");
            std::string fieldPath(str(r.get_object(), "fieldPath"));
            // As apiextensions' CEL validator words it: field.Invalid(path, <schema type>, message).
            std::string type(s.type);
            error(path.str() + fieldPath,
                  "Invalid value: \"" + type + "\": " +
                      (message.empty() ? "failed rule: " + std::string(rule) : std::string(message)));
        }
    }

    void validate(const json::value& v, const json::value* old, const json::object& schema, const LazyFieldPath& path, bool root) {
        const Keywords& s = keywordsOf(schema);
        if (v.is_null() && s.nullable) return;
        if (!checkType(v, s, path)) return;
        checkFormat(v, s, path);
        checkEnum(v, s, path);
        if (v.is_string()) checkString(v.get_string(), s, path);
        if (number(v)) checkNumber(v, s, path);
        if (v.is_array()) checkArray(v.get_array(), old, s, path);
        if (v.is_object()) checkObject(v.get_object(), old && old->is_object() ? &old->get_object() : nullptr, s, path, root);
        checkCel(v, old, s, path);
    }

    // The same for an object at the root, without copying it (or the old one) into a json::value,
    // which only the checks of a value itself need: a root schema of type object with none of
    // them (no rules, enum, format or int-or-string) checks the members alone.
    // Otherwise the object is copied into a value, or, given `borrow` (the same object, mutable),
    // moved into one and back.
    void validateRoot(const json::object& o, json::object* borrow, const json::object* old, const json::object& s) {
        const Keywords& k = keywordsOf(s);
        const bool membersOnly = (k.type.empty() || k.type == "object") && !k.rules && !k.intOrString && !k.enumValues &&
                                 k.format.empty();
        const LazyFieldPath root("");
        if (membersOnly) return checkObject(o, old, k, root, true);
        std::optional<json::value> before;
        if (old) before.emplace(*old);
        if (!borrow) {
            json::value self(o);
            return validate(self, before ? &*before : nullptr, s, root, true);
        }
        LentValue lent(*borrow);
        validate(lent.value(), before ? &*before : nullptr, s, root, true);
    }
};

// ---- ObjectMeta (what the API server checks for every object) ----


// A value quoted in a message, cut by quoteForError (a 10 MB name is not echoed whole).
std::string quoted(std::string_view s) { return json::serialize(json::value(json::string(quoteForError(s)))); }

void checkSubdomain(Diagnostics& d, const std::string& path, std::string_view v) {
    if (v.size() > 253) d.add(path, "Invalid value: " + quoted(v) + ": must be no more than 253 characters");
    if (!isDns1123Subdomain(v))
        d.add(path, "Invalid value: " + quoted(v) +
                        ": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
                        "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '" +
                        kDns1123SubdomainPattern + "')");
}

void checkQualifiedName(Diagnostics& d, const std::string& path, std::string_view key) {
    std::string_view name = key;
    if (auto slash = key.find('/'); slash != key.npos) {
        std::string_view prefix = key.substr(0, slash);
        name = key.substr(slash + 1);
        if (prefix.empty()) d.add(path, "Invalid value: " + quoted(key) + ": prefix part must be non-empty");
        else checkSubdomain(d, path, prefix);
    }
    if (name.empty()) d.add(path, "Invalid value: " + quoted(key) + ": name part must be non-empty");
    else if (name.size() > 63) d.add(path, "Invalid value: " + quoted(key) + ": name part must be no more than 63 characters");
    else if (!isQualifiedNamePart(name))
        d.add(path, "Invalid value: " + quoted(key) +
                        ": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                        "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '" +
                        kQualifiedNamePattern + "')");
}

void validateMeta(const json::object& o, bool namespaced, Diagnostics& d) {
    auto it = o.find("metadata");
    if (it == o.end() || it->value().is_null()) {
        d.add("metadata.name", "Required value: name or generateName is required", ErrorType::Required);
        return;
    }
    if (!it->value().is_object()) {
        d.add("metadata", "Invalid value: \"" + std::string(typeName(it->value())) + "\": metadata must be of type object",
              ErrorType::TypeInvalid);
        return;
    }
    auto const& m = it->value().get_object();
    auto name = m.find("name");
    if (name == m.end() || name->value().is_null() || (name->value().is_string() && name->value().get_string().empty()))
        d.add("metadata.name", "Required value: name or generateName is required", ErrorType::Required);
    else if (!name->value().is_string())
        d.add("metadata.name", "Invalid value: " + shown(name->value()) + ": must be a string", ErrorType::TypeInvalid);
    else
        checkSubdomain(d, "metadata.name", name->value().get_string());
    if (auto ns = m.find("namespace"); namespaced && ns != m.end() && !ns->value().is_null()) {
        if (!ns->value().is_string()) {
            d.add("metadata.namespace", "Invalid value: " + shown(ns->value()) + ": must be a string", ErrorType::TypeInvalid);
        } else if (std::string_view v = ns->value().get_string(); !v.empty()) {
            if (v.size() > 63) d.add("metadata.namespace", "Invalid value: " + quoted(v) + ": must be no more than 63 characters");
            if (!isDns1123LabelChars(v))
                d.add("metadata.namespace",
                      "Invalid value: " + quoted(v) +
                          ": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                          "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
                          "validation is '" + std::string(kDns1123LabelPattern) + "')");
        }
    }
    for (std::string_view field : {"labels", "annotations"}) {
        auto f = m.find(field);
        if (f == m.end() || f->value().is_null()) continue;
        std::string path = "metadata." + std::string(field);
        if (!f->value().is_object()) {
            d.add(path, "Invalid value: \"" + std::string(typeName(f->value())) + "\": must be a map of strings", ErrorType::TypeInvalid);
            continue;
        }
        std::size_t total = 0;
        for (auto const& kv : f->value().get_object()) {
            checkQualifiedName(d, path, kv.key());
            if (!kv.value().is_string()) {
                d.add(mapKey(path, kv.key()), "Invalid value: " + shown(kv.value()) + ": must be a string", ErrorType::TypeInvalid);
                continue;
            }
            std::string_view v = kv.value().get_string();
            total += kv.key().size() + v.size();
            if (field == "labels") {
                if (v.size() > 63) d.add(path, "Invalid value: " + quoted(v) + ": must be no more than 63 characters");
                else if (!isLabelValue(v))
                    d.add(path, "Invalid value: " + quoted(v) +
                                    ": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
                                    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
                                    "'my_value',  or '12345', regex used for validation is '" + std::string(kLabelValuePattern) + "')");
            }
        }
        if (field == "annotations" && total > 256 * 1024)
            d.add(path, "Too long: must have at most 262144 bytes", ErrorType::TooLong);
    }
}

int slot(ObjectKind k) {
    switch (k) {
        case ObjectKind::TrainJob: return 0;
        case ObjectKind::TrainingRuntime: return 1;
        case ObjectKind::ClusterTrainingRuntime: return 2;
        default: return -1;
    }
}

// Sets what `props` default in `o` and prunes null members of non-nullable fields, property by
// property in the schema's order. An object with no null member is only missing members, so
// only the properties with a default are looked at (`defaulted`, when given).
void defaultMembers(json::object& o, const json::object& props, const Defaulted* defaulted) {
    const bool anyNull = std::any_of(o.begin(), o.end(), [](auto const& kv) { return kv.value().is_null(); });
    if (defaulted && !anyNull) {
        for (auto const& [key, def] : *defaulted)
            if (!o.contains(key)) o[key] = *def;
        return;
    }
    for (auto const& p : props) {
        if (!p.value().is_object()) continue;
        auto const& ps = p.value().get_object();
        auto it = o.find(p.key());
        bool absentOrNull = it == o.end() || (it->value().is_null() && !flag(ps, "nullable"));
        if (!absentOrNull) continue;
        if (auto def = ps.find("default"); def != ps.end()) o[p.key()] = def->value();
        else if (it != o.end()) o.erase(it);  // null of a non-nullable field: pruned
    }
}

// `embedded`: `s` is a node of the embedded schemas (keywordsOf may remember it).
void defaultValue(json::value& v, const json::object& s, bool embedded) {
    if (v.is_object()) {
        auto& o = v.as_object();
        if (auto props = obj(s, "properties")) {
            defaultMembers(o, *props, embedded ? &keywordsOf(s).defaulted : nullptr);
            for (auto& kv : o)
                if (auto ps = obj(*props, kv.key())) defaultValue(kv.value(), *ps, embedded);
        } else if (auto add = obj(s, "additionalProperties")) {
            for (auto& kv : o) defaultValue(kv.value(), *add, embedded);
        }
    } else if (v.is_array()) {
        if (auto items = obj(s, "items"))
            for (auto& x : v.as_array()) defaultValue(x, *items, embedded);
    }
}

void collectRules(const json::value& v, std::set<std::string>& out) {
    if (v.is_object()) {
        for (auto const& kv : v.get_object()) {
            if (kv.key() == "x-kubernetes-validations" && kv.value().is_array()) {
                for (auto const& r : kv.value().get_array())
                    if (r.is_object()) out.insert(std::string(str(r.get_object(), "rule")));
            } else if (kv.key() != "default" && kv.key() != "enum") {
                collectRules(kv.value(), out);
            }
        }
    } else if (v.is_array()) {
        for (auto const& x : v.get_array()) collectRules(x, out);
    }
}

}  // namespace

const json::object* crdInfo(ObjectKind kind) {
    int i = slot(kind);
    if (i < 0 || crds().info[i].empty()) return nullptr;
    return &crds().info[i];
}

const json::object* crdSchema(ObjectKind kind) {
    auto info = crdInfo(kind);
    return info ? obj(*info, "schema") : nullptr;
}

void applySchemaDefaults(json::object& o, const json::object& schema) {
    LentValue v(o);
    defaultValue(v.value(), schema, /*embedded=*/false);
}

void applyDefaults(json::object& o) {
    ObjectKind kind = kindOf(o);
    auto schema = crdSchema(kind);
    if (!schema) return;
    {
        LentValue v(o);
        defaultValue(v.value(), *schema, /*embedded=*/true);
    }
    if (kind == ObjectKind::ClusterTrainingRuntime)
        if (auto it = o.find("metadata"); it != o.end() && it->value().is_object()) it->value().as_object().erase("namespace");
}

namespace {

Diagnostics checkSchema(const json::object& o, json::object* borrow, const json::object* oldObj) {
    Diagnostics d;
    ObjectKind kind = kindOf(o);
    auto schema = crdSchema(kind);
    if (!schema) return d;
    validateMeta(o, kind != ObjectKind::ClusterTrainingRuntime, d);
    Validator{d}.validateRoot(o, borrow, oldObj, *schema);
    return d;
}

}  // namespace

Diagnostics validateSchema(const json::object& o, const json::object* oldObj) { return checkSchema(o, nullptr, oldObj); }

Diagnostics validateSchemaInPlace(json::object& o, const json::object* oldObj) { return checkSchema(o, &o, oldObj); }

std::vector<std::string> celRulesInSchemas() {
    std::set<std::string> rules;
    for (auto k : {ObjectKind::TrainJob, ObjectKind::TrainingRuntime, ObjectKind::ClusterTrainingRuntime})
        if (auto s = crdSchema(k)) collectRules(json::value(*s), rules);
    return {rules.begin(), rules.end()};
}

bool celRuleImplemented(std::string_view rule) { return findCel(rule) != nullptr; }

}  // namespace trainer::core
