// Server-side apply and managedFields, after sigs.k8s.io/structured-merge-diff (SMD) and
// k8s.io/apimachinery/pkg/util/managedfields/internal. Section names below follow the upstream files
// they mirror so a reader can compare: fieldpath (paths, sets, FieldsV1), typed (merge, compare,
// tofieldset, remove), merge/update.go (the Updater), and the internal/*.go manager layers.
#include "core/apiserver/field_manager.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

namespace trainer::core::apiserver {

namespace {

using Names = std::vector<std::string>;

// ---------------------------------------------------------------------------------------------
// Go-compatible text: strconv.Quote (%q), fmt %v of float64, encoding/json output.
// ---------------------------------------------------------------------------------------------

std::string hexEscape(const char* fmt, unsigned c) {
    char buf[16];
    std::snprintf(buf, sizeof buf, fmt, c);
    return buf;
}

// strconv.Quote for valid UTF-8 (bytes >= 0x80 are passed through as printable runes).
std::string goQuote(std::string_view s) {
    static const std::map<char, const char*> shortEscapes = {
        {'"', "\\\""}, {'\\', "\\\\"}, {'\a', "\\a"}, {'\b', "\\b"}, {'\f', "\\f"},
        {'\n', "\\n"}, {'\r', "\\r"},  {'\t', "\\t"}, {'\v', "\\v"},
    };
    std::string out = "\"";
    for (unsigned char c : s) {
        if (auto it = shortEscapes.find(char(c)); it != shortEscapes.end()) out += it->second;
        else if (c < 0x20 || c == 0x7f) out += hexEscape("\\x%02x", c);
        else out += char(c);
    }
    return out + "\"";
}

// encoding/json string encoding (HTML-safe, as json.Marshal and jsoniter's std config write it).
std::string goJsonString(std::string_view s) {
    std::string out = "\"";
    for (std::size_t i = 0; i < s.size(); ++i) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') out += {'\\', char(c)};
        else if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (c == '\t') out += "\\t";
        else if (c < 0x20 || c == '<' || c == '>' || c == '&') out += hexEscape("\\u%04x", c);
        else if (c == 0xe2 && i + 2 < s.size() && (unsigned char)s[i + 1] == 0x80 &&
                 ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9)) {
            out += (unsigned char)s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029";
            i += 2;
        } else out += char(c);
    }
    return out + "\"";
}

std::string shortestFloat(double d, std::chars_format f) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, d, f);
    return std::string(buf, r.ptr);
}

int decimalExponent(double d) {
    std::string s = shortestFloat(d, std::chars_format::scientific);
    auto e = s.find('e');
    return e == std::string::npos ? 0 : std::atoi(s.c_str() + e + 1);
}

// fmt's %v of a float64 = strconv.FormatFloat(f, 'g', -1, 64): %e when the decimal exponent is < -4
// or >= 6 (the shortest form decides with precision 6), e.g. 1e+06, 123456, 0.0001, 1e-05.
std::string goFloatV(double d) {
    if (d == 0 || !std::isfinite(d)) return d == 0 ? "0" : shortestFloat(d, std::chars_format::general);
    int exp = decimalExponent(d);
    return (exp < -4 || exp >= 6) ? shortestFloat(d, std::chars_format::scientific)
                                   : shortestFloat(d, std::chars_format::fixed);
}

// encoding/json float64: 'f' unless the magnitude is < 1e-6 or >= 1e21, exponent without padding.
std::string goJsonFloat(double d) {
    double a = std::fabs(d);
    if (a != 0 && (a < 1e-6 || a >= 1e21)) {
        std::string s = shortestFloat(d, std::chars_format::scientific);
        auto n = s.size();
        if (n >= 4 && s[n - 4] == 'e' && s[n - 3] == '-' && s[n - 2] == '0') s.erase(n - 2, 1);
        return s;
    }
    return shortestFloat(d, std::chars_format::fixed);
}

std::string goJson(const json::value& v);

std::string goJsonObject(const json::object& o) {
    std::vector<std::pair<std::string_view, const json::value*>> items;
    for (auto const& kv : o) items.emplace_back(kv.key(), &kv.value());
    std::sort(items.begin(), items.end(), [](auto& a, auto& b) { return a.first < b.first; });
    std::string out = "{";
    for (auto const& [k, v] : items) out += (out.size() > 1 ? "," : "") + goJsonString(k) + ":" + goJson(*v);
    return out + "}";
}

// json.Marshal of a decoded unstructured value: map keys sorted, HTML-safe strings.
std::string goJson(const json::value& v) {
    switch (v.kind()) {
        case json::kind::null: return "null";
        case json::kind::bool_: return v.get_bool() ? "true" : "false";
        case json::kind::int64: return std::to_string(v.get_int64());
        case json::kind::uint64: return std::to_string(v.get_uint64());
        case json::kind::double_: return goJsonFloat(v.get_double());
        case json::kind::string: return goJsonString(v.get_string());
        case json::kind::array: {
            std::string out = "[";
            for (auto const& e : v.get_array()) out += (out.size() > 1 ? "," : "") + goJson(e);
            return out + "]";
        }
        case json::kind::object: return goJsonObject(v.get_object());
    }
    return "null";
}

// ---------------------------------------------------------------------------------------------
// value.ToString / value.Compare / value.Equals (structured-merge-diff value/value.go)
// ---------------------------------------------------------------------------------------------

bool isInt(const json::value& v) { return v.is_int64() || v.is_uint64(); }
bool isNumber(const json::value& v) { return isInt(v) || v.is_double(); }
double asDouble(const json::value& v) {
    return v.is_double() ? v.get_double() : v.is_int64() ? double(v.get_int64()) : double(v.get_uint64());
}

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

template <class T>
int cmp3(const T& a, const T& b) {
    return a < b ? -1 : (b < a ? 1 : 0);
}

int intCompare(const json::value& a, const json::value& b) {
    auto negative = [](const json::value& v) { return v.is_int64() && v.get_int64() < 0; };
    if (negative(a) != negative(b)) return negative(a) ? -1 : 1;
    if (negative(a)) return cmp3(a.get_int64(), b.get_int64());
    auto u = [](const json::value& v) { return v.is_uint64() ? v.get_uint64() : std::uint64_t(v.get_int64()); };
    return cmp3(u(a), u(b));
}

int valueCompare(const json::value& l, const json::value& r);

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

// Total order: numbers (ints and floats compared numerically) < strings < bools < lists < maps < null.
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

// ---------------------------------------------------------------------------------------------
// fieldpath: PathElement, Path, Set (fieldpath/element.go, path.go, set.go)
// ---------------------------------------------------------------------------------------------

struct PathElement {
    enum Type { Field, Key, Value, Index } type = Field;  // also the sort order between types
    std::string name;                                     // Field
    std::vector<std::pair<std::string, json::value>> key;  // Key, sorted by name
    json::value value;                                     // Value
    std::int64_t index = 0;                                // Index
};
using Path = std::vector<PathElement>;

PathElement fieldElement(std::string_view name) {
    PathElement pe;
    pe.name = std::string(name);
    return pe;
}

int keyCompare(const PathElement& a, const PathElement& b) {
    for (std::size_t i = 0; i < a.key.size() && i < b.key.size(); ++i) {
        if (int c = a.key[i].first.compare(b.key[i].first); c != 0) return c < 0 ? -1 : 1;
        if (int c = valueCompare(a.key[i].second, b.key[i].second); c != 0) return c;
    }
    return cmp3(a.key.size(), b.key.size());
}

int peCompare(const PathElement& a, const PathElement& b) {
    if (a.type != b.type) return a.type < b.type ? -1 : 1;
    switch (a.type) {
        case PathElement::Field: return cmp3(a.name, b.name);
        case PathElement::Key: return keyCompare(a, b);
        case PathElement::Value: return valueCompare(a.value, b.value);
        case PathElement::Index: return cmp3(a.index, b.index);
    }
    return 0;
}

struct PeLess {
    bool operator()(const PathElement& a, const PathElement& b) const { return peCompare(a, b) < 0; }
};

bool peEquals(const PathElement& a, const PathElement& b) { return peCompare(a, b) == 0; }

// PathElement.String: ".name", `[k=v,k2=v2]`, `[=v]`, "[3]".
std::string peString(const PathElement& pe) {
    switch (pe.type) {
        case PathElement::Field: return "." + pe.name;
        case PathElement::Key: {
            std::string out;
            for (auto const& [k, v] : pe.key) out += (out.empty() ? "" : ",") + k + "=" + valueToString(v);
            return "[" + out + "]";
        }
        case PathElement::Value: return "[=" + valueToString(pe.value) + "]";
        case PathElement::Index: return "[" + std::to_string(pe.index) + "]";
    }
    return "{{invalid path element}}";
}

std::string pathString(const Path& p) {
    std::string out;
    for (auto const& pe : p) out += peString(pe);
    return out;
}

struct FieldSet {
    std::set<PathElement, PeLess> members;
    std::map<PathElement, FieldSet, PeLess> children;

    bool empty() const {
        if (!members.empty()) return false;
        for (auto const& [pe, c] : children)
            if (!c.empty()) return false;
        return true;
    }
    // Inserting the empty path is a no-op: nobody owns the whole object.
    void insert(const Path& p) {
        if (p.empty()) return;
        FieldSet* s = this;
        for (std::size_t i = 0; i + 1 < p.size(); ++i) s = &s->children[p[i]];
        s->members.insert(p.back());
    }
    bool has(const Path& p) const {
        const FieldSet* s = this;
        for (std::size_t i = 0; i + 1 < p.size(); ++i) {
            auto it = s->children.find(p[i]);
            if (it == s->children.end()) return false;
            s = &it->second;
        }
        return !p.empty() && s->members.count(p.back()) > 0;
    }
    const FieldSet* child(const PathElement& pe) const {
        auto it = children.find(pe);
        return it == children.end() ? nullptr : &it->second;
    }
};

FieldSet unite(const FieldSet& a, const FieldSet& b) {
    FieldSet out = a;
    out.members.insert(b.members.begin(), b.members.end());
    for (auto const& [pe, c] : b.children) {
        auto it = out.children.find(pe);
        if (it == out.children.end()) out.children.emplace(pe, c);
        else it->second = unite(it->second, c);
    }
    return out;
}

FieldSet intersect(const FieldSet& a, const FieldSet& b) {
    FieldSet out;
    for (auto const& pe : a.members)
        if (b.members.count(pe)) out.members.insert(pe);
    for (auto const& [pe, c] : a.children)
        if (auto const* bc = b.child(pe)) {
            FieldSet r = intersect(c, *bc);
            if (!r.empty()) out.children.emplace(pe, std::move(r));
        }
    return out;
}

// Set.Difference: leaf-wise; a member of `b` does not remove children of `a` under it.
FieldSet subtract(const FieldSet& a, const FieldSet& b) {
    FieldSet out;
    for (auto const& pe : a.members)
        if (!b.members.count(pe)) out.members.insert(pe);
    for (auto const& [pe, c] : a.children) {
        auto const* bc = b.child(pe);
        FieldSet r = bc ? subtract(c, *bc) : c;
        if (!r.empty()) out.children.emplace(pe, std::move(r));
    }
    return out;
}

// Set.RecursiveDifference: a member of `b` also removes everything under it from `a`.
FieldSet recursiveSubtract(const FieldSet& a, const FieldSet& b) {
    FieldSet out;
    for (auto const& pe : a.members)
        if (!b.members.count(pe)) out.members.insert(pe);
    for (auto const& [pe, c] : a.children) {
        if (b.members.count(pe)) continue;
        auto const* bc = b.child(pe);
        FieldSet r = bc ? recursiveSubtract(c, *bc) : c;
        if (!r.empty()) out.children.emplace(pe, std::move(r));
    }
    return out;
}

// Set.Iterate order: this level's members, then each child subtree, in element order.
void iteratePaths(const FieldSet& s, Path& prefix, const std::function<void(const Path&)>& f) {
    for (auto const& pe : s.members) {
        prefix.push_back(pe);
        f(prefix);
        prefix.pop_back();
    }
    for (auto const& [pe, c] : s.children) {
        prefix.push_back(pe);
        iteratePaths(c, prefix, f);
        prefix.pop_back();
    }
}

FieldSet topLevelSet(std::initializer_list<std::vector<std::string>> paths) {
    FieldSet s;
    for (auto const& names : paths) {
        Path p;
        for (auto const& n : names) p.push_back(fieldElement(n));
        s.insert(p);
    }
    return s;
}

// ---------------------------------------------------------------------------------------------
// FieldsV1 (fieldpath/serialize.go, serialize-pe.go)
// ---------------------------------------------------------------------------------------------

std::string peSerialize(const PathElement& pe) {
    switch (pe.type) {
        case PathElement::Field: return "f:" + pe.name;
        case PathElement::Key: {
            std::string out;
            for (auto const& [k, v] : pe.key) out += (out.empty() ? "" : ",") + goJsonString(k) + ":" + goJson(v);
            return "k:{" + out + "}";
        }
        case PathElement::Value: return "v:" + goJson(pe.value);
        case PathElement::Index: return "i:" + std::to_string(pe.index);
    }
    return "";
}

enum class PeParse { Ok, Unknown, Error };

PeParse peDeserialize(std::string_view s, PathElement& pe, std::string& error) {
    if (s.size() < 2) return error = "key must be 2 characters long:", PeParse::Error;
    if (s[1] != ':') return error = "missing colon: " + std::string(s), PeParse::Error;
    std::string_view body = s.substr(2);
    boost::system::error_code ec;
    switch (s[0]) {
        case 'f': pe.type = PathElement::Field, pe.name = std::string(body); return PeParse::Ok;
        case 'i': pe.type = PathElement::Index, pe.index = std::atoll(std::string(body).c_str()); return PeParse::Ok;
        case 'v':
            pe.type = PathElement::Value, pe.value = json::parse(body, ec);
            return ec ? (error = ec.message(), PeParse::Error) : PeParse::Ok;
        case 'k': {
            json::value v = json::parse(body, ec);
            if (ec || !v.is_object()) return error = ec ? ec.message() : "expected an object", PeParse::Error;
            pe.type = PathElement::Key;
            for (auto const& kv : v.get_object()) pe.key.emplace_back(std::string(kv.key()), kv.value());
            std::stable_sort(pe.key.begin(), pe.key.end(), [](auto& a, auto& b) { return a.first < b.first; });
            return PeParse::Ok;
        }
        default: return PeParse::Unknown;  // a future element type: dropped, as upstream does
    }
}

// readIterV1: returns whether the node is itself a member; fills `children` with its sub-fields.
bool readFields(const json::object& node, FieldSet& children, std::string& error) {
    bool isMember = node.empty();
    for (auto const& kv : node) {
        if (kv.key() == ".") {
            isMember = true;
            continue;
        }
        PathElement pe;
        auto parsed = peDeserialize(kv.key(), pe, error);
        if (parsed == PeParse::Error) return false;
        if (parsed == PeParse::Unknown) continue;
        if (!kv.value().is_object()) return error = "expected an object for " + std::string(kv.key()), false;
        FieldSet grandchildren;
        bool childIsMember = readFields(kv.value().get_object(), grandchildren, error);
        if (!error.empty()) return false;
        if (childIsMember) children.members.insert(pe);
        if (!grandchildren.children.empty() || !grandchildren.members.empty())
            children.children[pe] = unite(children.children[pe], grandchildren);
    }
    return isMember;
}

std::optional<FieldSet> fieldsToSet(const json::value& fields, std::string& error) {
    if (!fields.is_object()) return error = "expected an object", std::nullopt;
    FieldSet s;
    readFields(fields.get_object(), s, error);
    if (!error.empty()) return std::nullopt;
    return s;
}

json::object setToFields(const FieldSet& s, bool includeSelf = false) {
    json::object out;
    if (includeSelf && !s.empty()) out["."] = json::object();
    auto m = s.members.begin();
    auto c = s.children.begin();
    while (m != s.members.end() || c != s.children.end()) {
        int order = m == s.members.end() ? 1 : c == s.children.end() ? -1 : peCompare(*m, c->first);
        if (order < 0) out[peSerialize(*m++)] = json::object();
        else {
            out[peSerialize(c->first)] = setToFields(c->second, order == 0);
            if (order == 0) ++m;
            ++c;
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// typed: schema lookups and list element keys (typed/helpers.go)
// ---------------------------------------------------------------------------------------------

struct Shapes {
    const ListShapeFn& fn;
    ListShape at(const Names& names) const { return fn ? fn(names) : ListShape{}; }
};

struct PeResult {
    PathElement pe;
    std::string error;  // non-empty when the element cannot be keyed
};

std::string goQuoteList(const std::vector<std::string>& keys) {
    std::string out;
    for (auto const& k : keys) out += (out.empty() ? "" : " ") + goQuote(k);
    return "[" + out + "]";
}

PeResult keyedItemPe(const ListShape& shape, const json::value& item) {
    PeResult r;
    if (item.is_null()) return r.error = "associative list with keys may not have a null element", r;
    if (!item.is_object()) return r.error = "associative list with keys may not have non-map elements", r;
    r.pe.type = PathElement::Key;
    for (auto const& k : shape.keys) {
        if (auto const* v = item.get_object().if_contains(k)) r.pe.key.emplace_back(k, *v);
        else if (auto const* d = shape.keyDefaults.if_contains(k)) r.pe.key.emplace_back(k, *d);
    }
    if (r.pe.key.empty())
        r.error = "associative list with keys has an element that omits all key fields " + goQuoteList(shape.keys) +
                  " (and doesn't have default values for any key fields)";
    std::stable_sort(r.pe.key.begin(), r.pe.key.end(), [](auto& a, auto& b) { return a.first < b.first; });
    return r;
}

PeResult setItemPe(const json::value& item) {
    PeResult r;
    if (item.is_object()) r.error = "associative list without keys has an element that's a map type";
    else if (item.is_array()) r.error = "not supported: associative list with lists as elements";
    else if (item.is_null()) r.error = "associative list without keys has an element that's an explicit null";
    r.pe.type = PathElement::Value;
    r.pe.value = item;
    return r;
}

// listItemToPathElement for an associative (map or set) list.
PeResult itemPe(const ListShape& shape, const json::value& item) {
    return shape.kind == ListShape::Map && !shape.keys.empty() ? keyedItemPe(shape, item) : setItemPe(item);
}

enum class Atom { Scalar, Map, List };

Atom atomOf(const json::value& v) { return v.is_object() ? Atom::Map : v.is_array() ? Atom::List : Atom::Scalar; }

bool present(const json::value* v) { return v && !v->is_null(); }

// The form both sides are handled as: the right side's unless it is absent or null (null is a wildcard).
Atom atomFor(const json::value* l, const json::value* r) {
    return present(r) ? atomOf(*r) : present(l) ? atomOf(*l) : Atom::Scalar;
}

const json::object* asObject(const json::value* v) { return v && v->is_object() ? &v->get_object() : nullptr; }
const json::array* asArray(const json::value* v) { return v && v->is_array() ? &v->get_array() : nullptr; }

// ---------------------------------------------------------------------------------------------
// typed/validate.go: the applied configuration must be keyable (errors are upstream's text)
// ---------------------------------------------------------------------------------------------

struct ValidationError {
    std::string path, message;
    std::string text() const { return path.empty() ? message : path + ": " + message; }
};

void validateValue(const json::value& v, const std::string& prefix, Names& names, const Shapes& sh,
                   std::vector<ValidationError>& errs);

void validateList(const json::array& list, const std::string& prefix, Names& names, const Shapes& sh,
                  std::vector<ValidationError>& errs) {
    ListShape shape = sh.at(names);
    std::set<PathElement, PeLess> observed;
    for (std::size_t i = 0; i < list.size(); ++i) {
        PathElement pe;
        if (shape.kind == ListShape::Atomic) {
            pe.type = PathElement::Index, pe.index = std::int64_t(i);
        } else {
            PeResult r = itemPe(shape, list[i]);
            if (!r.error.empty()) return errs.push_back({prefix, "element " + std::to_string(i) + ": " + r.error});
            if (!observed.insert(r.pe).second) errs.push_back({prefix, "duplicate entries for key " + peString(r.pe)});
            pe = std::move(r.pe);
        }
        validateValue(list[i], prefix + peString(pe), names, sh, errs);
    }
}

void validateValue(const json::value& v, const std::string& prefix, Names& names, const Shapes& sh,
                   std::vector<ValidationError>& errs) {
    if (v.is_array()) return validateList(v.get_array(), prefix, names, sh, errs);
    if (!v.is_object()) return;
    for (auto const& kv : v.get_object()) {
        names.emplace_back(kv.key());
        validateValue(kv.value(), prefix + "." + std::string(kv.key()), names, sh, errs);
        names.pop_back();
    }
}

std::string validationText(const std::vector<ValidationError>& errs) {
    if (errs.size() == 1) return errs[0].text();
    std::string out = "errors:";
    for (auto const& e : errs) out += "\n  " + e.text();
    return out;
}

// ---------------------------------------------------------------------------------------------
// typed/tofieldset.go: the fields a value sets
// ---------------------------------------------------------------------------------------------

void toSet(const json::value& v, Path& path, Names& names, const Shapes& sh, FieldSet& out);

void objectToSet(const json::object& o, Path& path, Names& names, const Shapes& sh, FieldSet& out) {
    ListShape shape = sh.at(names);
    if (shape.object == ListShape::AtomicObject) return out.insert(path);
    for (auto const& kv : o) {
        path.push_back(fieldElement(kv.key()));
        names.emplace_back(kv.key());
        toSet(kv.value(), path, names, sh, out);
        auto const& c = kv.value();
        if (c.is_null() || (c.is_object() && c.get_object().empty()) || shape.object == ListShape::FreeForm)
            out.insert(path);
        names.pop_back();
        path.pop_back();
    }
}

void listToSet(const json::array& list, Path& path, Names& names, const Shapes& sh, FieldSet& out) {
    ListShape shape = sh.at(names);
    if (shape.kind == ListShape::Atomic) return out.insert(path);
    std::vector<std::optional<PathElement>> pes;
    std::set<PathElement, PeLess> seen, duplicates;
    for (auto const& item : list) {
        PeResult r = itemPe(shape, item);
        pes.push_back(r.error.empty() ? std::optional<PathElement>(r.pe) : std::nullopt);
        if (pes.back() && !seen.insert(*pes.back()).second && duplicates.insert(*pes.back()).second) {
            path.push_back(*pes.back());
            out.insert(path);
            path.pop_back();
        }
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (!pes[i] || duplicates.count(*pes[i])) continue;
        path.push_back(*pes[i]);
        toSet(list[i], path, names, sh, out);
        out.insert(path);
        path.pop_back();
    }
}

void toSet(const json::value& v, Path& path, Names& names, const Shapes& sh, FieldSet& out) {
    if (v.is_object()) return objectToSet(v.get_object(), path, names, sh, out);
    if (v.is_array()) return listToSet(v.get_array(), path, names, sh, out);
    out.insert(path);
}

FieldSet toFieldSet(const json::value& v, const Shapes& sh) {
    FieldSet out;
    Path path;
    Names names;
    toSet(v, path, names, sh, out);
    return out;
}

// ---------------------------------------------------------------------------------------------
// typed/merge.go: live.Merge(config), config wins on leaves; lists merged per shape
// ---------------------------------------------------------------------------------------------

struct MergeContext {
    const Shapes& sh;
    std::vector<ValidationError> errors;
};

std::optional<json::value> mergeValue(const json::value* l, const json::value* r, Names& names, MergeContext& cx);

std::optional<json::value> mergeObjects(const json::object* l, const json::object* r, Names& names,
                                        MergeContext& cx) {
    json::object out;
    auto child = [&](std::string_view key, const json::value* lv, const json::value* rv) {
        names.emplace_back(key);
        if (auto m = mergeValue(lv, rv, names, cx)) out[key] = std::move(*m);
        names.pop_back();
    };
    if (l)
        for (auto const& kv : *l) child(kv.key(), &kv.value(), r ? r->if_contains(kv.key()) : nullptr);
    if (r)
        for (auto const& kv : *r)
            if (!l || !l->contains(kv.key())) child(kv.key(), nullptr, &kv.value());
    if (out.empty()) return std::nullopt;
    return json::value(std::move(out));
}

// indexListPathElements: element keys in order plus one value per key (a duplicated key maps to null).
struct IndexedList {
    std::vector<PathElement> pes;
    std::map<PathElement, const json::value*, PeLess> observed;
};

const json::value kNull;

bool indexList(const json::array* list, const ListShape& shape, bool allowDuplicates, IndexedList& out,
               std::vector<ValidationError>& errs) {
    if (!list) return true;
    bool ok = true;
    for (std::size_t i = 0; i < list->size(); ++i) {
        PeResult r = itemPe(shape, (*list)[i]);
        if (!r.error.empty()) {
            errs.push_back({"", "element " + std::to_string(i) + ": " + r.error}), ok = false;
            continue;
        }
        auto [it, fresh] = out.observed.emplace(r.pe, &(*list)[i]);
        if (!fresh && !allowDuplicates) {
            errs.push_back({"", "duplicate entries for key " + peString(r.pe)}), ok = false;
            continue;
        }
        if (!fresh) it->second = &kNull;
        out.pes.push_back(std::move(r.pe));
    }
    return ok;
}

const json::value* observedAt(const IndexedList& list, const PathElement& pe) {
    auto it = list.observed.find(pe);
    return it == list.observed.end() ? nullptr : it->second;
}

// visitListItems of typed/merge.go: keeps live order, inserting config-only items where config places
// them relative to the items both sides share.
std::optional<json::value> mergeLists(const json::array* l, const json::array* r, const ListShape& shape,
                                      Names& names, MergeContext& cx) {
    IndexedList rhs, lhs;
    bool ok = indexList(r, shape, false, rhs, cx.errors);
    if (!indexList(l, shape, true, lhs, cx.errors) || !ok) return std::nullopt;
    std::vector<const PathElement*> shared;
    for (auto const& pe : rhs.pes)
        if (lhs.observed.count(pe)) shared.push_back(&pe);
    std::size_t nextIdx = 0;
    const PathElement* nextShared = nullptr;
    auto advanceShared = [&] { nextShared = nextIdx < shared.size() ? shared[nextIdx++] : nullptr; };
    advanceShared();
    std::set<PathElement, PeLess> mergedRhs;
    json::array out;
    auto emit = [&](const json::value* lv, const json::value* rv) {
        if (auto m = mergeValue(lv, rv, names, cx)) out.push_back(std::move(*m));
    };
    std::size_t lI = 0, rI = 0;
    const std::size_t lLen = lhs.pes.size(), rLen = rhs.pes.size();
    while (lI < lLen || rI < rLen) {
        if (lI < lLen && rI < rLen) {
            const PathElement& pe = lhs.pes[lI];
            if (peEquals(pe, rhs.pes[rI])) {
                mergedRhs.insert(pe);
                emit(observedAt(lhs, pe), observedAt(rhs, pe));
                ++lI, ++rI;
                advanceShared();
                continue;
            }
            if (rhs.observed.count(pe) && nextShared && !peEquals(*nextShared, pe)) {
                ++lI;
                continue;
            }
        }
        if (lI < lLen) {
            const PathElement& pe = lhs.pes[lI];
            if (!rhs.observed.count(pe)) {
                emit(&(*l)[lI], nullptr);
                ++lI;
                continue;
            }
            if (mergedRhs.count(pe)) ++lI;
        }
        if (rI < rLen) {
            const PathElement& pe = rhs.pes[rI];
            mergedRhs.insert(pe);
            emit(observedAt(lhs, pe), observedAt(rhs, pe));
            ++rI;
            if (nextShared && peEquals(*nextShared, pe)) advanceShared();
        }
    }
    if (out.empty()) return std::nullopt;
    return json::value(std::move(out));
}

std::optional<json::value> mergeValue(const json::value* l, const json::value* r, Names& names, MergeContext& cx) {
    Atom atom = atomFor(l, r);
    auto keepRhs = [&] { return std::optional<json::value>(r ? *r : *l); };
    if (atom == Atom::Scalar) return keepRhs();
    ListShape shape = cx.sh.at(names);
    if (atom == Atom::Map) {
        auto const *lo = asObject(l), *ro = asObject(r);
        bool bothEmpty = (!lo || lo->empty()) && (!ro || ro->empty());
        if (shape.object == ListShape::AtomicObject || bothEmpty) return keepRhs();
        return mergeObjects(lo, ro, names, cx);
    }
    auto const *la = asArray(l), *ra = asArray(r);
    bool bothEmpty = (!la || la->empty()) && (!ra || ra->empty());
    if (shape.kind == ListShape::Atomic || bothEmpty) return keepRhs();
    return mergeLists(la, ra, shape, names, cx);
}

// ---------------------------------------------------------------------------------------------
// typed/compare.go: which fields were removed, modified, added between two objects
// ---------------------------------------------------------------------------------------------

struct Comparison {
    FieldSet removed, modified, added;
};

struct CompareWalk {
    const Shapes& sh;
    Comparison& out;
    Path path;
    Names names;

    void leaf(const json::value* l, const json::value* r) {
        if (!l) out.added.insert(path);
        else if (!r) out.removed.insert(path);
        else if (!valueEquals(*l, *r)) out.modified.insert(path);
    }

    void field(std::string_view key, const json::value* l, const json::value* r) {
        path.push_back(fieldElement(key));
        names.emplace_back(key);
        value(l, r);
        names.pop_back();
        path.pop_back();
    }

    void objects(const json::object* l, const json::object* r) {
        if (l)
            for (auto const& kv : *l) field(kv.key(), &kv.value(), r ? r->if_contains(kv.key()) : nullptr);
        if (r)
            for (auto const& kv : *r)
                if (!l || !l->contains(kv.key())) field(kv.key(), nullptr, &kv.value());
    }

    void item(const PathElement& pe, const json::value* l, const json::value* r) {
        path.push_back(pe);
        value(l, r);
        path.pop_back();
    }

    using Occurrences = std::map<PathElement, std::vector<const json::value*>, PeLess>;

    void gather(const json::array* list, const ListShape& shape, Occurrences& occ, std::vector<PathElement>& order) {
        if (!list) return;
        for (auto const& v : *list) {
            PeResult r = itemPe(shape, v);
            if (!r.error.empty()) continue;
            auto& slot = occ[r.pe];
            if (slot.empty() && std::none_of(order.begin(), order.end(), [&](auto& p) { return peEquals(p, r.pe); }))
                order.push_back(r.pe);
            slot.push_back(&v);
        }
    }

    // Duplicated keys are compared as a unit, as upstream does.
    void lists(const json::array* l, const json::array* r, const ListShape& shape) {
        Occurrences lv, rv;
        std::vector<PathElement> order;
        gather(l, shape, lv, order);
        gather(r, shape, rv, order);
        for (auto const& pe : order) {
            auto const& a = lv[pe];
            auto const& b = rv[pe];
            if (a.size() <= 1 && b.size() <= 1) item(pe, a.empty() ? nullptr : a[0], b.empty() ? nullptr : b[0]);
            else if (a.size() >= 2 && b.size() >= 2) {
                bool same = a.size() == b.size() &&
                            std::equal(a.begin(), a.end(), b.begin(), [](auto x, auto y) { return valueEquals(*x, *y); });
                if (!same) insertAt(out.modified, pe);
            } else if (a.size() >= 2) {
                if (!b.empty()) item(pe, nullptr, b[0]);
                insertAt(out.removed, pe);
            } else {
                if (!a.empty()) item(pe, a[0], nullptr);
                insertAt(out.added, pe);
            }
        }
    }

    void insertAt(FieldSet& s, const PathElement& pe) {
        path.push_back(pe);
        s.insert(path);
        path.pop_back();
    }

    // Both sides present with different forms (say a string replaced by a map): the field is modified
    // and the sub-fields of either side are removed / added.
    void reshaped(const json::value* l, const json::value* r) {
        out.modified.insert(path);
        if (atomOf(*l) != Atom::Scalar) visitChildren(l, nullptr, atomOf(*l));
        if (atomOf(*r) != Atom::Scalar) visitChildren(nullptr, r, atomOf(*r));
    }

    // Walks the sub-fields of a granular map or list; false when the value is compared as one leaf
    // (atomic, or empty on both sides, which keeps the empty/null distinction).
    bool visitChildren(const json::value* l, const json::value* r, Atom atom) {
        ListShape shape = sh.at(names);
        if (atom == Atom::Map) {
            auto const *lo = asObject(l), *ro = asObject(r);
            if (shape.object == ListShape::AtomicObject || ((!lo || lo->empty()) && (!ro || ro->empty()))) return false;
            objects(lo, ro);
            return true;
        }
        auto const *la = asArray(l), *ra = asArray(r);
        if (shape.kind == ListShape::Atomic || ((!la || la->empty()) && (!ra || ra->empty()))) return false;
        lists(la, ra, shape);
        return true;
    }

    void containers(const json::value* l, const json::value* r, Atom atom) {
        if (!visitChildren(l, r, atom)) return leaf(l, r);
        if (!l) out.added.insert(path);
        else if (!r) out.removed.insert(path);
    }

    void value(const json::value* l, const json::value* r) {
        if (present(l) && present(r) && atomOf(*l) != atomOf(*r)) return reshaped(l, r);
        Atom atom = atomFor(l, r);
        if (atom == Atom::Scalar) return leaf(l, r);
        containers(l, r, atom);
    }
};

Comparison compareObjects(const json::value& l, const json::value& r, const Shapes& sh) {
    Comparison c;
    CompareWalk w{sh, c, {}, {}};
    w.value(&l, &r);
    return c;
}

// ---------------------------------------------------------------------------------------------
// typed/remove.go (RemoveItems) and Set.EnsureNamedFieldsAreMembers
// ---------------------------------------------------------------------------------------------

// Returns nullopt where upstream yields null (a container left empty); a map member so emptied is
// kept as null, as upstream keeps it, and the stored form drops null members (dropNullMembers).
std::optional<json::value> removeItems(const json::value& v, const FieldSet& toRemove, Names& names,
                                       const Shapes& sh) {
    if (v.is_object()) {
        auto const& o = v.get_object();
        if (o.empty() || sh.at(names).object == ListShape::AtomicObject) return std::nullopt;
        json::object out;
        for (auto const& kv : o) {
            PathElement pe = fieldElement(kv.key());
            if (toRemove.members.count(pe)) continue;
            auto const* sub = toRemove.child(pe);
            if (!sub || sub->empty()) {
                out[kv.key()] = kv.value();
                continue;
            }
            names.emplace_back(kv.key());
            auto r = removeItems(kv.value(), *sub, names, sh);
            names.pop_back();
            out[kv.key()] = r ? std::move(*r) : json::value(nullptr);  // emptied: kept as null, as upstream
        }
        return out.empty() ? std::nullopt : std::optional<json::value>(std::move(out));
    }
    if (!v.is_array()) return v;
    auto const& list = v.get_array();
    ListShape shape = sh.at(names);
    if (list.empty() || shape.kind == ListShape::Atomic) return std::nullopt;
    json::array out;
    for (auto const& item : list) {
        PeResult r = itemPe(shape, item);
        if (!r.error.empty()) {
            out.push_back(item);
            continue;
        }
        if (toRemove.members.count(r.pe)) continue;
        auto const* sub = toRemove.child(r.pe);
        if (!sub || sub->empty()) {
            out.push_back(item);
        } else if (auto kept = removeItems(item, *sub, names, sh)) {
            out.push_back(std::move(*kept));
        }
    }
    return out.empty() ? std::nullopt : std::optional<json::value>(std::move(out));
}

json::value removeFrom(const json::value& v, const FieldSet& toRemove, const Shapes& sh) {
    Names names;
    auto r = removeItems(v, toRemove, names, sh);
    return r ? std::move(*r) : json::value(json::object());
}

// Struct fields with owned sub-fields also count as owned themselves (so pruning can drop them).
FieldSet ensureNamed(const FieldSet& s, Names& names, const Shapes& sh) {
    FieldSet out;
    out.members = s.members;
    bool declared = sh.at(names).object == ListShape::Struct;
    for (auto const& [pe, c] : s.children) {
        if (pe.type != PathElement::Field) {
            out.children.emplace(pe, ensureNamed(c, names, sh));
            continue;
        }
        if (declared) out.members.insert(pe);
        names.push_back(pe.name);
        out.children.emplace(pe, ensureNamed(c, names, sh));
        names.pop_back();
    }
    return out;
}

FieldSet ensureNamed(const FieldSet& s, const Shapes& sh) {
    Names names;
    return ensureNamed(s, names, sh);
}

// ---------------------------------------------------------------------------------------------
// managedFields entries (internal/managedfields.go, buildmanagerinfo.go, conflict.go)
// ---------------------------------------------------------------------------------------------

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

struct Entry {
    std::string manager, operation, apiVersion, subresource;
    std::optional<std::string> time;
    FieldSet set;
};
using Managers = std::map<std::string, Entry>;  // by manager identifier

// BuildManagerIdentifier: the entry as JSON without time and fields, and without apiVersion for appliers.
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

// printManager of conflict.go (identifiers never carry a time, so no "at <time>").
std::string printManager(const Entry& e) {
    std::string out = goQuote(e.manager);
    if (!e.subresource.empty()) out += " with subresource " + goQuote(e.subresource);
    if (e.operation == "Update") out += " using " + e.apiVersion;
    return out;
}

struct Decoded {
    Managers managers;
    std::string error;
};

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

// DecodeManagedFields of metadata.managedFields; a value that is not a list of objects reads as none,
// as Unstructured.GetManagedFields does.
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

std::int64_t daysFromCivil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = unsigned(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + std::int64_t(doe) - 719468;
}

// Unix seconds of an RFC 3339 time (0 when absent or unreadable), for upstream's entry ordering.
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

// EncodeObjectManagedFields: sorted entries, or no managedFields member at all when none remain.
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

// stripMetaManager: identity and server-owned metadata are never owned.
const FieldSet& strippedFields() {
    static const FieldSet s = topLevelSet({{"apiVersion"},
                                           {"kind"},
                                           {"metadata"},
                                           {"metadata", "name"},
                                           {"metadata", "namespace"},
                                           {"metadata", "creationTimestamp"},
                                           {"metadata", "selfLink"},
                                           {"metadata", "uid"},
                                           {"metadata", "clusterName"},
                                           {"metadata", "generation"},
                                           {"metadata", "managedFields"},
                                           {"metadata", "resourceVersion"}});
    return s;
}

void stripMeta(Managers& managers, const std::string& id) {
    auto it = managers.find(id);
    if (it == managers.end()) return;
    it->second.set = subtract(it->second.set, strippedFields());
    if (it->second.set.empty()) managers.erase(it);
}

// ---------------------------------------------------------------------------------------------
// merge/update.go: the Updater
// ---------------------------------------------------------------------------------------------

struct Conflict {
    std::string id;
    Entry owner;  // manager, operation, apiVersion, subresource of the owner (set left empty)
    Path path;
};
using Conflicts = std::vector<Conflict>;

// ConflictsFromManagers, ordered by manager identifier and then Set.Iterate order.
Conflicts conflictsFrom(const std::map<std::string, FieldSet>& sets, const Managers& managers) {
    Conflicts out;
    for (auto const& [id, set] : sets) {
        Entry owner = managers.at(id);
        owner.set = {};
        Path prefix;
        iteratePaths(set, prefix, [&](const Path& p) { out.push_back({id, owner, p}); });
    }
    return out;
}

// Updater.update: fields changed between oldObj and newObj are taken from every manager but
// `workflow` (or reported as conflicts when !force); removed fields are dropped from their owners.
Conflicts updateManagers(const json::value& oldObj, const json::value& newObj, Managers& managers,
                         const std::string& workflow, bool force, const FieldSet& ignored, const Shapes& sh,
                         Comparison* comparison = nullptr) {
    Comparison c = compareObjects(oldObj, newObj, sh);
    c.removed = recursiveSubtract(c.removed, ignored);
    c.modified = recursiveSubtract(c.modified, ignored);
    c.added = recursiveSubtract(c.added, ignored);
    const FieldSet changed = unite(c.modified, c.added);
    std::map<std::string, FieldSet> conflicts;
    for (auto const& [id, e] : managers)
        if (id != workflow)
            if (FieldSet x = intersect(e.set, changed); !x.empty()) conflicts.emplace(id, std::move(x));
    if (!force && !conflicts.empty()) return conflictsFrom(conflicts, managers);
    for (auto& [id, e] : managers) {
        if (id == workflow) continue;
        if (auto it = conflicts.find(id); it != conflicts.end()) e.set = subtract(e.set, it->second);
        e.set = subtract(e.set, c.removed);
    }
    std::erase_if(managers, [](auto const& kv) { return kv.second.set.empty(); });
    if (comparison) *comparison = std::move(c);
    return {};
}

// Updater.prune: drop what the applier owned last time and no manager owns now (struct fields
// included, so emptied parents go too), keeping fields nobody ever owned.
json::value prune(const json::value& merged, const Managers& managers, const std::optional<FieldSet>& lastSet,
                  const Shapes& sh) {
    if (!lastSet || lastSet->empty()) return merged;
    const FieldSet last = ensureNamed(*lastSet, sh);
    FieldSet managed;
    for (auto const& [id, e] : managers) managed = unite(managed, e.set);
    const FieldSet mergedSet = ensureNamed(toFieldSet(merged, sh), sh);
    json::value pruned = removeFrom(merged, last, sh);
    FieldSet keep = unite(ensureNamed(toFieldSet(pruned, sh), sh), ensureNamed(managed, sh));
    pruned = removeFrom(merged, subtract(mergedSet, keep), sh);  // addBackOwnedItems
    FieldSet prunedSet = ensureNamed(toFieldSet(pruned, sh), sh);
    return removeFrom(merged, intersect(subtract(mergedSet, prunedSet), last), sh);  // addBackDanglingItems
}

struct ApplyRun {
    Conflicts conflicts;
    std::string error;  // an internal (500) failure
    json::value object;
    bool changed = false;
    Managers managers;
};

// Updater.Apply.
ApplyRun smdApply(const json::value& live, const json::value& applied, Managers managers, const Entry& applier,
                  bool force, const FieldSet& ignored, const Shapes& sh) {
    ApplyRun run;
    MergeContext cx{sh, {}};
    Names names;
    auto merged = mergeValue(&live, &applied, names, cx);
    if (!cx.errors.empty()) return run.error = "failed to merge config: " + validationText(cx.errors), run;
    const std::string id = identifier(applier);
    std::optional<FieldSet> lastSet;
    Entry entry = applier;
    if (auto it = managers.find(id); it != managers.end()) lastSet = it->second.set, entry.time = it->second.time;
    entry.set = recursiveSubtract(toFieldSet(applied, sh), ignored);
    managers[id] = std::move(entry);
    json::value newObj = prune(merged ? *merged : json::value(json::object()), managers, lastSet, sh);
    run.conflicts = updateManagers(live, newObj, managers, id, force, ignored, sh);
    if (!run.conflicts.empty()) return run;
    run.changed = !valueEquals(live, newObj);
    run.object = run.changed ? std::move(newObj) : live;
    run.managers = std::move(managers);
    return run;
}

// Updater.Update as driven by managedFieldsUpdater: the write's changes go to a scratch manager,
// then join `writer`'s entry, which gets `time` only when it took something.
void updateCore(const json::value& live, const json::value& newObj, Managers& managers, Entry writer,
                std::string_view time, const FieldSet& ignored, const Shapes& sh) {
    Comparison c;
    updateManagers(live, newObj, managers, "current-operation", true, ignored, sh, &c);
    FieldSet took = subtract(recursiveSubtract(unite(c.modified, c.added), ignored), strippedFields());
    if (took.empty()) return;
    const std::string id = identifier(writer);
    if (auto it = managers.find(id); it != managers.end()) took = unite(took, it->second.set);
    writer.set = std::move(took);
    writer.time = std::string(time);
    managers[id] = std::move(writer);
}

// capManagersManager: keep at most `max` Update entries, folding the oldest into "ancient-changes".
void capUpdateManagers(Managers& managers, std::size_t max = 10) {
    std::vector<std::string> updaters;
    for (auto const& [id, e] : managers)
        if (e.operation != "Apply") updaters.push_back(id);
    if (updaters.size() <= max) return;
    std::sort(updaters.begin(), updaters.end(), [&](auto const& a, auto const& b) {
        return std::make_pair(unixSeconds(managers[a].time), a) < std::make_pair(unixSeconds(managers[b].time), b);
    });
    std::map<std::string, std::string> firstOfVersion;
    std::size_t length = updaters.size();
    for (std::size_t i = 0; i < updaters.size() && length > max; ++i) {
        Entry e = managers.at(updaters[i]);
        Entry bucket{"ancient-changes", "Update", e.apiVersion, "", e.time, {}};
        const std::string bucketId = identifier(bucket);
        auto first = firstOfVersion.find(e.apiVersion);
        if (first == firstOfVersion.end()) {
            firstOfVersion.emplace(e.apiVersion, updaters[i]);
            continue;
        }
        if (!managers.count(bucketId)) {
            bucket.set = managers.at(first->second).set;
            managers.erase(first->second);
        } else bucket.set = managers.at(bucketId).set;
        bucket.set = unite(e.set, bucket.set);
        managers.erase(updaters[i]);
        managers[bucketId] = std::move(bucket);
        --length;
    }
}

// ---------------------------------------------------------------------------------------------
// The apply request (fieldmanager.go, versioncheck.go, skipnonapplied.go, lastapplied*.go)
// ---------------------------------------------------------------------------------------------

constexpr std::string_view kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

std::string gvkString(const json::object& o) {
    std::string apiVersion = stringAt(o, "apiVersion");
    auto slash = apiVersion.find('/');
    std::string group = slash == std::string::npos ? "" : apiVersion.substr(0, slash);
    std::string version = slash == std::string::npos ? apiVersion : apiVersion.substr(slash + 1);
    return group + "/" + version + ", Kind=" + stringAt(o, "kind");
}

// objectGVKNN: "namespace/name; group/version, Kind=Kind".
std::string objectGvknn(const json::object& o) {
    auto const* m = metadataOf(o);
    std::string ns = m ? stringAt(*m, "namespace") : "", name = m ? stringAt(*m, "name") : "";
    return ns + "/" + name + "; " + gvkString(o);
}

// Unstructured.GetManagedFields() != nil: a list whose items are all objects.
bool listsManagedFields(const json::object& config) {
    auto const* mf = managedFieldsOf(config);
    if (!mf || !mf->is_array()) return false;
    auto const& a = mf->get_array();
    return std::all_of(a.begin(), a.end(), [](auto const& v) { return v.is_object(); });
}

// The configuration actually merged: without server-owned metadata; for the status subresource only
// the identity and .status; for the main resource of a kind with a status subresource, without .status.
json::object appliedConfig(const json::object& config, bool statusSubresource, std::string_view subresource) {
    json::object applied = config;
    if (auto* m = applied.if_contains("metadata"); m && m->is_object())
        for (auto key : {"uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
                         "deletionGracePeriodSeconds", "selfLink", "managedFields"})
            m->get_object().erase(key);
    if (subresource == "status") {
        json::object only;
        for (auto key : {"apiVersion", "kind", "status"})
            if (auto const* v = applied.if_contains(key)) only[key] = *v;
        if (auto const* m = metadataOf(applied)) {
            json::object identity;
            for (auto key : {"name", "namespace"})
                if (auto const* v = m->if_contains(key)) identity[key] = *v;
            only["metadata"] = std::move(identity);
        }
        return only;
    }
    if (statusSubresource) applied.erase("status");
    return applied;
}

// The strategy's reset fields (GetResetFields), excluded from ownership: the main resource of a kind
// with a status subresource does not own .status; the status subresource does not own .spec.
FieldSet ignoredFields(bool statusSubresource, std::string_view subresource) {
    if (subresource == "status") return topLevelSet({{"spec"}});
    if (statusSubresource && subresource.empty()) return topLevelSet({{"status"}});
    return {};
}

// skipNonAppliedManager: an object nobody tracks yet is first attributed to "before-first-apply".
ApplyRun applyTracked(const json::value& live, const json::value& applied, Managers managers, const Entry& applier,
                      bool force, const FieldSet& ignored, std::string_view time, const Shapes& sh) {
    if (managers.empty())
        updateCore(json::object(), live, managers, Entry{"before-first-apply", "Update", applier.apiVersion,
                                                          applier.subresource, std::nullopt, {}},
                   time, ignored, sh);
    return smdApply(live, applied, std::move(managers), applier, force, ignored, sh);
}

const json::string* lastAppliedOf(const json::value& obj) {
    auto const* o = asObject(&obj);
    auto const* m = o ? metadataOf(*o) : nullptr;
    auto const* a = m ? m->if_contains("annotations") : nullptr;
    auto const* v = a && a->is_object() ? a->get_object().if_contains(kLastApplied) : nullptr;
    return v && v->is_string() && !v->get_string().empty() ? &v->get_string() : nullptr;
}

// lastAppliedManager.allowedConflictsFromLastApplied: fields the client-side apply annotation sets
// to the values live still has.
std::optional<FieldSet> allowedFromLastApplied(const json::value& live, std::string_view apiVersion,
                                               const Shapes& sh) {
    auto const* text = lastAppliedOf(live);
    if (!text) return std::nullopt;
    boost::system::error_code ec;
    json::value last = json::parse(*text, ec);
    if (ec || !last.is_object() || stringAt(last.get_object(), "apiVersion") != apiVersion) return std::nullopt;
    std::vector<ValidationError> errs;
    Names names;
    validateValue(last, "", names, sh, errs);
    if (!errs.empty()) return std::nullopt;
    Comparison c = compareObjects(last, live, sh);
    return subtract(subtract(subtract(toFieldSet(last, sh), c.modified), c.added), c.removed);
}

// lastAppliedManager.Apply: "kubectl" may take over fields it set through client-side apply.
ApplyRun applyUpgradingClientSide(const json::value& live, const json::value& applied, const Managers& managers,
                                  const Entry& applier, bool force, const FieldSet& ignored, std::string_view time,
                                  const Shapes& sh) {
    ApplyRun run = applyTracked(live, applied, managers, applier, force, ignored, time, sh);
    if (applier.manager != "kubectl" || run.conflicts.empty()) return run;
    auto allowed = allowedFromLastApplied(live, applier.apiVersion, sh);
    if (!allowed) return run;
    Conflicts rest;
    for (auto& c : run.conflicts)
        if (!allowed->has(c.path)) rest.push_back(std::move(c));
    if (!rest.empty()) return run.conflicts = std::move(rest), run;
    return applyTracked(live, applied, managers, applier, true, ignored, time, sh);
}

// lastAppliedUpdater: keep an existing client-side apply annotation equal to what "kubectl" applied
// (json.Encoder output: sorted keys, trailing newline).
void syncLastApplied(json::object& obj, const json::object& config) {
    if (!lastAppliedOf(obj)) return;
    json::object copy = config;
    if (auto* m = copy.if_contains("metadata"); m && m->is_object())
        if (auto* a = m->get_object().if_contains("annotations"); a && a->is_object()) a->get_object().erase(kLastApplied);
    obj["metadata"].get_object()["annotations"].get_object()[kLastApplied] = goJson(copy) + "\n";
}

SsaResult failure(unsigned code, std::string reason, std::string message) {
    SsaResult r;
    r.ok = false;
    r.code = code;
    r.reason = std::move(reason);
    r.message = std::move(message);
    return r;
}

// NewConflictError / getConflictMessage of conflict.go.
SsaResult conflictResult(const Conflicts& conflicts) {
    SsaResult r = failure(409, "Conflict", "");
    std::map<std::string, std::vector<std::string>> byManager;
    std::map<std::string, std::string> printed;
    for (auto const& c : conflicts) {
        printed[c.id] = printManager(c.owner);
        byManager[c.id].push_back(pathString(c.path));
        r.conflicts.push_back({c.owner.manager, pathString(c.path), "conflict with " + printed[c.id]});
    }
    if (conflicts.size() == 1) {
        r.message = "Apply failed with 1 conflict: " + r.conflicts[0].cause + ": " + r.conflicts[0].path;
        return r;
    }
    std::string lines;
    for (auto const& [id, paths] : byManager) {
        lines += (lines.empty() ? "" : "\n") + std::string("conflicts with ") + printed[id] + ":";
        for (auto const& p : paths) lines += "\n- " + p;
    }
    r.message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
    return r;
}

// decodeLiveOrNew of fieldmanager.go: managedFields sent with a write win unless it is a subresource
// write or they are unreadable/empty; an empty list (or one empty entry) resets them.
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

}  // namespace

namespace {

// The stored form of an apply's result: members whose value is null are dropped, as the API server's
// typed conversion (built-in kinds) and its pruning of nulls in non-nullable fields (custom resources)
// drop them. Applying this after upstream's merge and removal keeps apply idempotent for a config with
// explicit nulls (test/fuzz/README.md finding 8): `{spec: null}` over owned children and over nothing
// both store `{}`.
void dropNullMembers(json::value& v) {
    if (auto* o = v.if_object()) {
        for (auto it = o->begin(); it != o->end();) {
            if (it->value().is_null()) {
                it = o->erase(it);
            } else {
                dropNullMembers(it->value());
                ++it;
            }
        }
    } else if (auto* a = v.if_array()) {
        for (auto& e : *a) dropNullMembers(e);
    }
}

}  // namespace

SsaResult serverSideApply(const json::object* live, const json::object& config, std::string_view manager,
                          bool force, std::string_view time, const ListShapeFn& shapes, bool statusSubresource,
                          std::string_view subresource) {
    const Shapes sh{shapes};
    if (subresource == "status" && !live) return failure(404, "NotFound", "");
    Decoded decoded = decodeManaged(live ? managedFieldsOf(*live) : nullptr);
    if (!decoded.error.empty()) return failure(500, "", "failed to decode managed fields: " + decoded.error);
    if (live && (stringAt(config, "apiVersion") != stringAt(*live, "apiVersion") ||
                 stringAt(config, "kind") != stringAt(*live, "kind")))
        return failure(400, "BadRequest", "invalid object type: " + gvkString(config));
    if (listsManagedFields(config)) return failure(400, "BadRequest", "metadata.managedFields must be nil");
    std::vector<ValidationError> errs;
    Names names;
    validateValue(config, "", names, sh, errs);
    if (!errs.empty())
        return failure(500, "", "failed to create typed patch object (" + objectGvknn(config) + "): " + validationText(errs));

    const Entry applier{manager.empty() ? "unknown" : std::string(manager), "Apply", stringAt(config, "apiVersion"),
                        std::string(subresource), std::nullopt, {}};
    const json::value liveValue = live ? json::value(*live) : json::value(json::object());
    ApplyRun run = applyUpgradingClientSide(liveValue, appliedConfig(config, statusSubresource, subresource),
                                            decoded.managers, applier, force,
                                            ignoredFields(statusSubresource, subresource), time, sh);
    if (!run.error.empty()) return failure(500, "", run.error);
    if (!run.conflicts.empty()) return conflictResult(run.conflicts);

    const std::string id = identifier(applier);
    stripMeta(run.managers, id);
    if (auto it = run.managers.find(id); it != run.managers.end() && run.changed) it->second.time = std::string(time);
    SsaResult result;
    dropNullMembers(run.object);
    result.object = run.object.is_object() ? std::move(run.object.get_object()) : json::object();
    encodeManaged(result.object, run.managers);
    if (applier.manager == "kubectl") syncLastApplied(result.object, config);
    return result;
}

void recordUpdate(const json::object* before, json::object& after, std::string_view manager, std::string_view time,
                  const ListShapeFn& shapes, std::string_view subresource) {
    const Shapes sh{shapes};
    Managers managers = decodeLiveOrNew(before, after, !subresource.empty());
    if (auto* m = after.if_contains("metadata"); m && m->is_object()) m->get_object().erase("managedFields");
    // skipNonAppliedManager: an existing object (one with a UID) nobody tracks starts being tracked at
    // its first apply; a create (no live UID) is tracked.
    auto const* liveMeta = before ? metadataOf(*before) : nullptr;
    if (managers.empty() && liveMeta && !stringAt(*liveMeta, "uid").empty()) return;
    const json::value liveValue = before ? json::value(*before) : json::value(json::object());
    Entry writer{manager.empty() ? "unknown" : std::string(manager), "Update", stringAt(after, "apiVersion"),
                 std::string(subresource), std::nullopt, {}};
    updateCore(liveValue, json::value(after), managers, std::move(writer), time, {}, sh);
    capUpdateManagers(managers);
    encodeManaged(after, managers);
}


// ---------------------------------------------------------------------------------------------
// Shapes: the built-in table and CRD schemas
// ---------------------------------------------------------------------------------------------

namespace {

ListShape keyedBy(std::vector<std::string> keys, json::object defaults = {}) {
    ListShape s;
    s.kind = ListShape::Map;
    s.keys = std::move(keys);
    s.keyDefaults = std::move(defaults);
    return s;
}

ListShape withObject(ListShape::ObjectKind kind, ListShape s = {}) {
    s.object = kind;
    return s;
}

ListShape setList() {
    ListShape s;
    s.kind = ListShape::Set;
    return s;
}

struct ShapeRule {
    std::vector<std::string> pattern;
    bool exact;  // the whole path, rather than its tail
    ListShape shape;
};

bool ruleMatches(const ShapeRule& r, const Names& path) {
    if (r.exact) return path == r.pattern;
    return path.size() >= r.pattern.size() && std::equal(r.pattern.rbegin(), r.pattern.rend(), path.rbegin());
}

// k8s.io/api markers (+listType/+listMapKey/+patchMergeKey, +structType=atomic, map[string]string).
std::vector<ShapeRule> builtinRules(std::string_view kind) {
    const json::object tcp{{"protocol", "TCP"}};
    const ListShape freeForm = withObject(ListShape::FreeForm), atomicObject = withObject(ListShape::AtomicObject);
    const bool servicePorts = kind.empty() || kind == "Service";
    return {
        {{"metadata", "finalizers"}, true, setList()},
        {{"metadata", "ownerReferences"}, true, keyedBy({"uid"})},
        {{"spec", "ports"}, true, servicePorts ? keyedBy({"port", "protocol"}, tcp) : ListShape{}},
        {{"data"}, true, freeForm},
        {{"stringData"}, true, freeForm},
        {{"binaryData"}, true, freeForm},
        {{"containers", "ports"}, false, keyedBy({"containerPort", "protocol"}, tcp)},
        {{"initContainers", "ports"}, false, keyedBy({"containerPort", "protocol"}, tcp)},
        {{"ephemeralContainers", "ports"}, false, keyedBy({"containerPort", "protocol"}, tcp)},
        {{"resources", "claims"}, false, keyedBy({"name"})},
        {{"metadata", "labels"}, false, freeForm},
        {{"metadata", "annotations"}, false, freeForm},
        {{"containers"}, false, keyedBy({"name"})},
        {{"initContainers"}, false, keyedBy({"name"})},
        {{"ephemeralContainers"}, false, keyedBy({"name"})},
        {{"env"}, false, keyedBy({"name"})},
        {{"volumeMounts"}, false, keyedBy({"mountPath"})},
        {{"volumeDevices"}, false, keyedBy({"devicePath"})},
        {{"volumes"}, false, keyedBy({"name"})},
        {{"imagePullSecrets"}, false, keyedBy({"name"})},
        {{"hostAliases"}, false, keyedBy({"ip"})},
        {{"topologySpreadConstraints"}, false, keyedBy({"topologyKey", "whenUnsatisfiable"})},
        {{"resourceClaims"}, false, keyedBy({"name"})},
        {{"schedulingGates"}, false, keyedBy({"name"})},
        {{"conditions"}, false, keyedBy({"type"})},
        {{"limits"}, false, freeForm},
        {{"requests"}, false, freeForm},
        {{"capacity"}, false, freeForm},
        {{"allocatable"}, false, freeForm},
        {{"hard"}, false, freeForm},
        {{"used"}, false, freeForm},
        {{"nodeSelector"}, false, freeForm},
        {{"matchLabels"}, false, freeForm},
        {{"selector"}, false, atomicObject},  // LabelSelector; Service/RC selectors are +mapType=atomic
        {{"labelSelector"}, false, atomicObject},
        {{"namespaceSelector"}, false, atomicObject},
        {{"requiredDuringSchedulingIgnoredDuringExecution"}, false, atomicObject},
        {{"configMapKeyRef"}, false, atomicObject},
        {{"secretKeyRef"}, false, atomicObject},
        {{"fieldRef"}, false, atomicObject},
        {{"resourceFieldRef"}, false, atomicObject},
    };
}

const json::object* member(const json::object* node, std::string_view key) {
    auto const* v = node ? node->if_contains(key) : nullptr;
    return v && v->is_object() ? &v->get_object() : nullptr;
}

bool flag(const json::object* node, std::string_view key) {
    auto const* v = node ? node->if_contains(key) : nullptr;
    return v && v->is_bool() && v->get_bool();
}

std::string text(const json::object* node, std::string_view key) {
    return node ? stringAt(*node, key) : std::string();
}

// Array schemas are transparent in paths: step into their items.
const json::object* elementSchema(const json::object* node) {
    while (node && (text(node, "type") == "array" || member(node, "items")) && member(node, "items"))
        node = member(node, "items");
    return node;
}

bool freeFormMap(const json::object* node) {
    auto const* ap = node ? node->if_contains("additionalProperties") : nullptr;
    return (ap && (ap->is_object() || (ap->is_bool() && ap->get_bool()))) || flag(node, "x-kubernetes-preserve-unknown-fields");
}

ListShape::ObjectKind objectKindOf(const json::object* node) {
    if (text(node, "x-kubernetes-map-type") == "atomic") return ListShape::AtomicObject;
    if (member(node, "properties")) return ListShape::Struct;
    return freeFormMap(node) ? ListShape::FreeForm : ListShape::Struct;
}

ListShape shapeOfSchema(const json::object* node) {
    ListShape s;
    s.object = objectKindOf(elementSchema(node));
    if (!member(node, "items")) return s;
    std::string listType = text(node, "x-kubernetes-list-type");
    if (listType == "set") s.kind = ListShape::Set;
    if (listType != "map") return s;
    s.kind = ListShape::Map;
    auto const* keys = node->if_contains("x-kubernetes-list-map-keys");
    auto const* props = member(member(node, "items"), "properties");
    for (auto const& k : keys && keys->is_array() ? keys->get_array() : json::array()) {
        if (!k.is_string()) continue;
        s.keys.emplace_back(k.get_string());
        if (auto const* d = props ? member(props, k.get_string()) : nullptr; d && d->contains("default"))
            s.keyDefaults[k.get_string()] = d->at("default");
    }
    return s;
}

// What upstream deduces inside x-kubernetes-preserve-unknown-fields: granular free-form maps, atomic lists.
ListShape deducedShape() { return withObject(ListShape::FreeForm); }

}  // namespace

ListShapeFn builtinListShapes(std::string_view kind) {
    auto rules = std::make_shared<const std::vector<ShapeRule>>(builtinRules(kind));
    return [rules](const std::vector<std::string>& path) {
        for (auto const& r : *rules)
            if (ruleMatches(r, path)) return r.shape;
        return ListShape{};
    };
}

ListShapeFn listShapeFromSchema(const json::object* openApiV3Schema, ListShapeFn fallback) {
    auto root = openApiV3Schema ? std::make_shared<const json::object>(*openApiV3Schema) : nullptr;
    return [root, fallback](const std::vector<std::string>& path) -> ListShape {
        auto fromFallback = [&] { return fallback ? fallback(path) : ListShape{}; };
        // ObjectMeta is never described by a CRD schema beyond `type: object`.
        if (!root || (!path.empty() && path[0] == "metadata")) return fromFallback();
        const json::object* node = root.get();
        for (auto const& name : path) {
            node = elementSchema(node);
            if (auto const* field = member(member(node, "properties"), name)) {
                node = field;
                continue;
            }
            if (auto const* ap = member(node, "additionalProperties")) {
                node = ap;
                continue;
            }
            if (freeFormMap(node)) return deducedShape();
            return fromFallback();
        }
        return shapeOfSchema(node);
    };
}

}  // namespace trainer::core::apiserver
