// A port of k8s.io/apimachinery v0.36.3 pkg/util/strategicpatch/patch.go, the server-side path
// (StrategicMergeMapPatchUsingLookupPatchMeta: MergeParallelList and IgnoreUnmatchedNulls on),
// with the Go struct tags read from a PatchSchema. Function names follow upstream's where one
// function here does what one function there does.
#include "core/runtime/strategic_merge.hpp"

#include <algorithm>
#include <exception>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer::core {

namespace {

constexpr std::string_view kDirective = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList";
constexpr std::string_view kSetElementOrder = "$setElementOrder";
constexpr std::string_view kMapType = "map[string]interface {}";
constexpr std::string_view kSliceType = "[]interface {}";

// k8s.io/apimachinery/pkg/util/mergepatch/errors.go and the texts patch.go builds inline.
constexpr std::string_view kErrBadJSONDoc = "invalid JSON document";
constexpr std::string_view kErrNoListOfLists = "lists of lists are not supported";
constexpr std::string_view kErrBadPrimitiveList = "invalid patch format of primitive list";
constexpr std::string_view kErrBadRetainKeys = "invalid patch format of retainKeys";
constexpr std::string_view kErrBadSetElementOrder = "invalid patch format of setElementOrder list";
constexpr std::string_view kErrMergeDirective = "merging lists cannot yet be specified in the patch";
constexpr std::string_view kErrNilType = "runtime error: invalid memory address or nil pointer dereference";

// ---- Go's view of a decoded document (apimachinery's json.Unmarshal into interface{}) ----

enum class GoKind { Nil, Map, Slice, String, Int64, Float64, Bool };

// Integers that fit int64 decode as int64, every other number as float64.
GoKind goKind(const json::value& v) {
    switch (v.kind()) {
    case json::kind::null: return GoKind::Nil;
    case json::kind::object: return GoKind::Map;
    case json::kind::array: return GoKind::Slice;
    case json::kind::string: return GoKind::String;
    case json::kind::int64: return GoKind::Int64;
    case json::kind::bool_: return GoKind::Bool;
    default: return GoKind::Float64;
    }
}

// reflect.TypeOf(v) as %s prints it.
std::string goTypeName(const json::value& v) {
    switch (goKind(v)) {
    case GoKind::Nil: return "%!s(<nil>)";
    case GoKind::Map: return std::string(kMapType);
    case GoKind::Slice: return std::string(kSliceType);
    case GoKind::String: return "string";
    case GoKind::Int64: return "int64";
    case GoKind::Float64: return "float64";
    case GoKind::Bool: return "bool";
    }
    return "";
}

enum class GoEq { False, True, Panic };

// Go's == on two interface{} values: other dynamic types are unequal, two maps or two slices panic.
GoEq goEqual(const json::value& a, const json::value& b) {
    GoKind k = goKind(a);
    if (k != goKind(b)) return GoEq::False;
    if (k == GoKind::Map || k == GoKind::Slice) return GoEq::Panic;
    if (k == GoKind::Float64) return a.to_number<double>() == b.to_number<double>() ? GoEq::True : GoEq::False;
    return a == b ? GoEq::True : GoEq::False;
}

// ---- texts ----

std::string text(const json::value& v) { return json::serialize(v); }

std::string member(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string item(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

std::string errNoMergeKey(const json::value& m, std::string_view key) {
    return "map: " + text(m) + " does not contain declared merge key: " + std::string(key);
}

std::string errBadArgType(std::string_view expected, const json::value& actual) {
    return "expected a " + std::string(expected) + ", but received a " + goTypeName(actual);
}

// %s prints a string directive bare.
std::string errBadPatchType(const json::value& directive, const json::value& m) {
    std::string d = directive.is_string() ? std::string(directive.get_string()) : text(directive);
    return "unknown patch type: " + d + " in map: " + text(m);
}

std::string errUncomparable(const json::value& v) { return "runtime error: comparing uncomparable type " + goTypeName(v); }

// ---- directives ----

bool isString(const json::value& v, std::string_view s) { return v.is_string() && v.get_string() == s; }

bool hasDirective(const json::value& v) { return v.is_object() && v.get_object().contains(kDirective); }

bool isDeleteItem(const json::value& v) {
    auto const* d = v.is_object() ? v.get_object().if_contains(kDirective) : nullptr;
    return d && isString(*d, "delete");
}

// extractKey: the part after "<prefix>/", nullopt when `s` is not "<prefix>/...".
std::optional<std::string> extractKey(std::string_view s, std::string_view prefix) {
    auto slash = s.find('/');
    if (slash == std::string_view::npos || s.substr(0, slash) != prefix) return std::nullopt;
    return std::string(s.substr(slash + 1));
}

// removeDirectives: maps holding `$patch` vanish (nullopt at the top), recursively.
std::optional<json::value> removeDirectives(json::value v) {
    if (v.is_array()) {
        json::array out;
        for (auto& e : v.get_array())
            if (auto kept = removeDirectives(std::move(e))) out.push_back(std::move(*kept));
        return json::value(std::move(out));
    }
    if (!v.is_object()) return v;
    auto& o = v.get_object();
    if (o.contains(kDirective)) return std::nullopt;
    for (auto it = o.begin(); it != o.end();) {
        auto kept = removeDirectives(std::move(it->value()));
        if (!kept) {
            it = o.stable_erase(it);
            continue;
        }
        it->value() = std::move(*kept);
        ++it;
    }
    return v;
}

// What json.Unmarshal into the Go struct leaves of the merge result: null members and `$...`
// members go. (This also covers discardNullValuesFromPatch, whose nulls would go here anyway.)
void dropLeftovers(json::value& v) {
    if (v.is_array()) {
        for (auto& e : v.get_array()) dropLeftovers(e);
        return;
    }
    if (!v.is_object()) return;
    auto& o = v.get_object();
    for (auto it = o.begin(); it != o.end();) {
        if (it->value().is_null() || it->key().starts_with('$')) {
            it = o.stable_erase(it);
            continue;
        }
        dropLeftovers(it->value());
        ++it;
    }
}

// ---- patch metadata ----

// LookupPatchMetadataForStruct/ForSlice: the field's Go type below (its element type for a
// list), its strategy without retainKeys (extractRetainKeysPatchStrategy) and its merge key.
struct Meta {
    std::string_view sub;
    std::string_view strategy;
    std::string_view mergeKey;
    bool object = false;  // a tagged struct or map field
};

std::string_view withoutRetainKeys(std::string_view s) {
    auto comma = s.find(',');
    std::string_view a = s.substr(0, comma), b = comma == std::string_view::npos ? "" : s.substr(comma + 1);
    if (a == "retainKeys") return b;
    if (b == "retainKeys") return a;
    return s;
}

std::nullopt_t none() { return std::nullopt; }

// One strategic merge: the first failure is kept in `error` and every step returns at once.
class Merger {
public:
    explicit Merger(const PatchSchema& schema) : schema_(schema) {}

    std::optional<FieldError> error;

    std::optional<json::value> run(const json::value& original, const json::value& patch, const std::string& path) {
        if (!patch.is_object() || !(original.is_object() || original.is_null())) return fail(path, kErrBadJSONDoc), none();
        if (!checkObject(patch.get_object(), schema_.root, path)) return std::nullopt;
        json::object out = original.is_object() ? original.get_object() : json::object();
        json::object p = patch.get_object();
        if (!mergeMap(out, p, schema_.root, path)) return std::nullopt;
        json::value v(std::move(out));
        dropLeftovers(v);
        return v;
    }

private:
    bool fail(std::string path, std::string_view message) {
        if (!error) error = FieldError{std::move(path), std::string(message), ErrorType::Invalid, {}};
        return false;
    }

    Meta meta(std::string_view type, std::string_view key) const {
        auto row = patchFieldOf(schema_, type, key);
        if (!row) return {};
        return {row->child, withoutRetainKeys(row->strategy), row->mergeKey, row->shape == FieldShape::Object};
    }

    // ---- the typed decode upstream: a tagged field holds its Go type ----

    bool checkObject(const json::object& o, std::string_view type, const std::string& path) {
        if (type.empty()) return true;
        for (auto const& kv : o) {
            if (kv.key().starts_with('$') || kv.value().is_null()) continue;
            auto row = patchFieldOf(schema_, type, kv.key());
            if (row && !checkField(kv.value(), *row, member(path, kv.key()))) return false;
        }
        return true;
    }

    bool checkField(const json::value& v, const PatchField& f, const std::string& path) {
        if (f.shape == FieldShape::Any) return true;
        if (f.shape == FieldShape::Object) {
            if (!v.is_object()) return fail(path, errBadArgType(kMapType, v));
            return checkObject(v.get_object(), f.child, path);
        }
        if (!v.is_array()) return fail(path, errBadArgType(kSliceType, v));
        auto const& a = v.get_array();
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!checkItem(a[i], f, item(path, i))) return false;
        return true;
    }

    // Items of a keyed list (or of one whose element type has tagged fields) are structs; a merged
    // list without merge key holds strings (finalizers is the only one); others are not checked.
    bool checkItem(const json::value& v, const PatchField& f, const std::string& path) {
        if (f.mergeKey.empty() && f.child.empty()) {
            bool scalars = f.strategy.starts_with("merge");
            return !scalars || v.is_string() || fail(path, errBadArgType("string", v));
        }
        if (!v.is_object()) return fail(path, errBadArgType(kMapType, v));
        return checkObject(v.get_object(), f.child, path);
    }

    // ---- maps ----

    // mergeMap: `patch` (consumed) merged into `original` at Go type `type`.
    bool mergeMap(json::object& original, json::object& patch, std::string_view type, const std::string& path) {
        if (patch.contains(kDirective)) return mapDirective(original, patch, path);
        if (!applyRetainKeys(original, patch, path) || !mergeElementOrders(original, patch, type, path)) return false;
        for (auto& kv : patch)
            if (!mergeMember(original, kv.key(), kv.value(), type, path)) return false;
        return true;
    }

    // handleDirectiveInMergeMap: replace by the rest of the patch, delete to an empty map.
    bool mapDirective(json::object& original, json::object& patch, const std::string& path) {
        json::value d = patch.at(kDirective);
        if (isString(d, "replace")) {
            patch.stable_erase(kDirective);
            original = std::move(patch);
            return true;
        }
        if (isString(d, "delete")) {
            original.clear();
            return true;
        }
        return fail(path, errBadPatchType(d, json::value(patch)));
    }

    // applyRetainKeysDirective: every patch member must be listed; unlisted original keys go.
    bool applyRetainKeys(json::object& original, json::object& patch, const std::string& path) {
        auto it = patch.find(kRetainKeys);
        if (it == patch.end()) return true;
        json::value keep = std::move(it->value());
        patch.stable_erase(kRetainKeys);
        const std::string where = member(path, kRetainKeys);
        if (!keep.is_array()) return fail(where, kErrBadRetainKeys);
        for (auto const& k : keep.get_array())
            if (k.is_object() || k.is_array()) return fail(where, "runtime error: hash of unhashable type " + goTypeName(k));
        auto kept = [&](std::string_view key) {
            return std::any_of(keep.get_array().begin(), keep.get_array().end(), [&](auto const& k) { return isString(k, key); });
        };
        for (auto const& kv : patch) {
            std::string_view k = kv.key();
            if (kv.value().is_null() || k.starts_with(kDeleteFromPrimitiveList) || k.starts_with(kSetElementOrder)) continue;
            if (!kept(k)) return fail(where, kErrBadRetainKeys);
        }
        for (auto o = original.begin(); o != original.end();) o = kept(o->key()) ? o + 1 : original.stable_erase(o);
        return true;
    }

    // The loop body of mergeMap for one patch member.
    bool mergeMember(json::object& original, std::string_view key, json::value& patchV, std::string_view type,
                     const std::string& path) {
        const std::string where = member(path, key);
        std::string target(key);
        bool deleteList = key.starts_with(kDeleteFromPrimitiveList);  // preprocessDeletionListForMerging
        if (deleteList) {
            auto k = extractKey(key, kDeleteFromPrimitiveList);
            if (!k) return fail(where, kErrBadPrimitiveList);
            if (!k->empty()) target = std::move(*k);
        }
        if (patchV.is_null()) {
            original.stable_erase(target);
            return true;
        }
        json::value* cur = original.if_contains(target);
        if (!cur || goKind(*cur) != goKind(patchV)) {
            if (deleteList) return true;
            if (auto kept = removeDirectives(std::move(patchV))) original[target] = std::move(*kept);
            else original.stable_erase(target);
            return true;
        }
        Meta m = meta(type, target);
        if (patchV.is_object()) return mergeMapHandler(*cur, patchV, m, where);
        if (patchV.is_array()) return mergeSliceHandler(*cur, patchV, m, deleteList, where);
        *cur = std::move(patchV);
        return true;
    }

    bool mergeMapHandler(json::value& cur, json::value& patchV, const Meta& m, const std::string& where) {
        if (m.strategy == "replace") {
            cur = std::move(patchV);
            return true;
        }
        return mergeMap(cur.get_object(), patchV.get_object(), m.sub, where);
    }

    // ---- $setElementOrder (mergePatchIntoOriginal) ----

    bool mergeElementOrders(json::object& original, json::object& patch, std::string_view type, const std::string& path) {
        std::vector<std::string> keys;
        for (auto const& kv : patch)
            if (kv.key().starts_with(kSetElementOrder)) keys.emplace_back(kv.key());
        for (auto const& key : keys) {
            json::value order = std::move(patch.at(key));
            patch.stable_erase(key);
            const std::string where = member(path, key);
            if (!order.is_array()) return fail(where, errBadArgType(kSliceType, order));
            auto listKey = extractKey(key, kSetElementOrder);
            if (!listKey) return fail(where, kErrBadSetElementOrder);
            if (!mergeOrderedList(original, patch, *listKey, order.get_array(), type, path, where)) return false;
        }
        return true;
    }

    // One list and its order: merged as without the directive, then sorted by `order`; the list
    // leaves the patch.
    bool mergeOrderedList(json::object& original, json::object& patch, const std::string& key, const json::array& order,
                          std::string_view type, const std::string& path, const std::string& where) {
        static const json::array kNone;
        const std::string listPath = member(path, key);
        const json::value* o = original.if_contains(key);
        const json::value* p = patch.if_contains(key);
        if (o && !o->is_array()) return fail(listPath, errBadArgType(kSliceType, *o));
        if (p && !p->is_array()) return fail(listPath, errBadArgType(kSliceType, *p));
        Meta m = meta(type, key);
        if (m.object) return fail(where, "expected slice or array type, but got: struct");
        const json::array& ol = o ? o->get_array() : kNone;
        const json::array& pl = p ? p->get_array() : kNone;
        if (!validatePatchWithSetOrderList(pl, order, m.mergeKey, where)) return false;
        if (!o && !p) return true;
        auto merged = orderedListItems(o, p, m, listPath);
        json::array in, out;
        if (!merged || !partition(std::move(*merged), order, m.mergeKey, where, in, out)) return false;
        auto kind = sliceElementType({&ol, &pl}, listPath);
        auto both = kind ? normalizeElementOrder(std::move(in), std::move(out), order, ol, m.mergeKey, *kind, where) : none();
        if (!both) return false;
        original[key] = std::move(*both);
        patch.stable_erase(key);
        return true;
    }

    // The list before ordering: the original's, the patch's, or both merged by the list's strategy.
    std::optional<json::array> orderedListItems(const json::value* o, const json::value* p, const Meta& m, const std::string& listPath) {
        if (!p) return o->get_array();
        if (!o) return removeDirectives(*p)->get_array();
        if (m.strategy == "merge") return mergeSlice(o->get_array(), p->get_array(), m, false, listPath);
        return p->get_array();
    }

    // The patch list's items (deletions aside) appear in `order` in the same relative order.
    bool validatePatchWithSetOrderList(const json::array& list, const json::array& order, std::string_view mergeKey,
                                       const std::string& where) {
        if (order.empty() || list.empty()) return true;
        std::vector<const json::value*> items;
        for (auto const& v : list) {
            if (!mergeKey.empty() && !v.is_object()) return fail(where, errBadArgType(kMapType, v));
            if (mergeKey.empty() || !isDeleteItem(v)) items.push_back(&v);
        }
        std::size_t pi = 0, si = 0;
        while (pi < items.size() && si < order.size()) {
            if (hasDirective(*items[pi])) {
                ++pi;
                continue;
            }
            auto eq = mergeKeyValueEqual(*items[pi], order[si], mergeKey, where);
            if (!eq) return false;
            if (*eq) ++pi;
            ++si;
        }
        if (pi < items.size())
            return fail(where, "The order in patch list:\n" + text(list) + "\n doesn't match " + std::string(kSetElementOrder) +
                                   " list:\n" + text(order) + "\n");
        return true;
    }

    std::optional<bool> mergeKeyValueEqual(const json::value& l, const json::value& r, std::string_view mergeKey,
                                           const std::string& where) {
        if (mergeKey.empty()) return equal(l, r, where);
        for (auto const* v : {&l, &r}) {
            if (!v->is_object()) return fail(where, errBadArgType(kMapType, *v)), none();
            if (!v->get_object().contains(mergeKey)) return fail(where, errNoMergeKey(*v, mergeKey)), none();
        }
        return equal(l.get_object().at(mergeKey), r.get_object().at(mergeKey), where);
    }

    std::optional<bool> equal(const json::value& a, const json::value& b, const std::string& where) {
        GoEq eq = goEqual(a, b);
        if (eq == GoEq::Panic) return fail(where, errUncomparable(a)), none();
        return eq == GoEq::True;
    }

    // ---- lists ----

    // mergeSliceHandler: merged when tagged `merge` (or a $deleteFromPrimitiveList list), else replaced.
    bool mergeSliceHandler(json::value& cur, json::value& patchV, const Meta& m, bool deleteList, const std::string& where) {
        if (m.strategy != "merge" && !deleteList) {
            cur = std::move(patchV);
            return true;
        }
        auto merged = mergeSlice(std::move(cur.get_array()), patchV.get_array(), m, deleteList, where);
        if (!merged) return false;
        cur = std::move(*merged);
        return true;
    }

    std::optional<json::array> mergeSlice(json::array original, const json::array& patch, const Meta& m, bool deleteList,
                                          const std::string& where) {
        if (original.empty() && patch.empty()) return original;
        auto kind = sliceElementType({&original, &patch}, where);
        if (!kind) return std::nullopt;
        if (*kind != GoKind::Map) {
            if (deleteList) return deleteFromSlice(original, patch);
            json::array merged;  // deduplicateScalars(original + patch); the order is normalized below
            for (const json::array* l : std::initializer_list<const json::array*>{&original, &patch})
                for (auto const& v : *l)
                    if (std::none_of(merged.begin(), merged.end(), [&](auto const& e) { return goEqual(e, v) == GoEq::True; }))
                        merged.push_back(v);
            return normalizedMerge(std::move(merged), patch, original, m.mergeKey, *kind, where);
        }
        if (m.mergeKey.empty()) return fail(where, "cannot merge lists without merge key for struct"), none();
        json::array plain;
        std::vector<std::size_t> at;
        if (!mergeSliceWithSpecialElements(original, patch, m.mergeKey, where, plain, at)) return std::nullopt;
        json::array serverOrder = original;
        if (!mergeSliceWithoutSpecialElements(original, plain, at, m, where)) return std::nullopt;
        return normalizedMerge(std::move(original), plain, serverOrder, m.mergeKey, *kind, where);
    }

    // All items of all lists have one Go type, and it is not a list.
    std::optional<GoKind> sliceElementType(std::initializer_list<const json::array*> lists, const std::string& where) {
        std::optional<GoKind> prev;
        for (const json::array* l : lists)
            for (auto const& v : *l) {
                GoKind k = goKind(v);
                if (!prev && k == GoKind::Nil) return fail(where, kErrNilType), none();
                if (!prev && k == GoKind::Slice) return fail(where, kErrNoListOfLists), none();
                if (prev && k != *prev) return fail(where, "list element types are not identical: " + listsText(lists)), none();
                prev = k;
            }
        if (!prev) fail(where, "no elements in any of the given slices");
        return prev;
    }

    static std::string listsText(std::initializer_list<const json::array*> lists) {
        json::array all;
        for (const json::array* l : lists) all.push_back(*l);
        return text(all);
    }

    static json::array deleteFromSlice(const json::array& current, const json::array& toDelete) {
        json::array out;
        for (auto const& v : current)
            if (std::none_of(toDelete.begin(), toDelete.end(), [&](auto const& d) { return goEqual(v, d) == GoEq::True; }))
                out.push_back(v);
        return out;
    }

    // `$patch: delete` items drop the original items with their key, `$patch: replace` makes the
    // plain items the whole list; `plain` gets the other items, `at` their indexes in the patch.
    bool mergeSliceWithSpecialElements(json::array& original, const json::array& patch, std::string_view mergeKey,
                                       const std::string& where, json::array& plain, std::vector<std::size_t>& at) {
        bool replace = false;
        for (std::size_t i = 0; i < patch.size(); ++i) {
            const json::value* d = patch[i].get_object().if_contains(kDirective);
            if (!d) {
                plain.push_back(patch[i]);
                at.push_back(i);
            } else if (isString(*d, "delete")) {
                const json::value* k = patch[i].get_object().if_contains(mergeKey);
                if (!k) return fail(item(where, i), errNoMergeKey(patch[i], mergeKey));
                if (!deleteMatchingEntries(original, mergeKey, *k, where)) return false;
            } else if (isString(*d, "replace")) {
                replace = true;
            } else {
                return fail(item(where, i), isString(*d, "merge") ? std::string(kErrMergeDirective) : errBadPatchType(*d, patch[i]));
            }
        }
        if (replace) {
            original = std::exchange(plain, json::array());
            at.clear();
        }
        return true;
    }

    bool deleteMatchingEntries(json::array& original, std::string_view mergeKey, const json::value& value, const std::string& where) {
        for (;;) {
            std::optional<std::size_t> pos;
            if (!findMapInSliceBasedOnKeyValue(original, mergeKey, value, where, pos)) return false;
            if (!pos) return true;
            original.erase(original.begin() + static_cast<std::ptrdiff_t>(*pos));
        }
    }

    // Each plain item merged into the first original item with its key, else appended.
    bool mergeSliceWithoutSpecialElements(json::array& original, const json::array& plain, const std::vector<std::size_t>& at,
                                          const Meta& m, const std::string& where) {
        for (std::size_t i = 0; i < plain.size(); ++i) {
            const std::string p = item(where, at[i]);
            const json::value* k = plain[i].get_object().if_contains(m.mergeKey);
            if (!k) return fail(p, errNoMergeKey(plain[i], m.mergeKey));
            std::optional<std::size_t> pos;
            if (!findMapInSliceBasedOnKeyValue(original, m.mergeKey, *k, where, pos)) return false;
            if (!pos) {
                original.push_back(plain[i]);
                continue;
            }
            json::object patchItem = plain[i].get_object();
            if (!mergeMap(original[*pos].get_object(), patchItem, m.sub, p)) return false;
        }
        return true;
    }

    // The first map in `list` whose `key` equals `value`; a non-map before it is an error.
    bool findMapInSliceBasedOnKeyValue(const json::array& list, std::string_view key, const json::value& value,
                                       const std::string& where, std::optional<std::size_t>& pos) {
        pos.reset();
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (!list[i].is_object()) return fail(where, "value for key " + std::to_string(i) + " is not a map");
            const json::value* v = list[i].get_object().if_contains(key);
            auto eq = v ? equal(*v, value, where) : std::optional(false);
            if (!eq) return false;
            if (*eq) {
                pos = i;
                return true;
            }
        }
        return true;
    }

    // ---- order (the tail of mergeSlice) ----

    std::optional<json::array> normalizedMerge(json::array merged, const json::array& patch, const json::array& serverOrder,
                                               std::string_view mergeKey, GoKind kind, const std::string& where) {
        json::array in, out;
        if (!partition(std::move(merged), patch, mergeKey, where, in, out)) return std::nullopt;
        return normalizeElementOrder(std::move(in), std::move(out), patch, serverOrder, mergeKey, kind, where);
    }

    // partitionPrimitivesByPresentInList / partitionMapsByPresentInList: `in` holds the items found in `by`.
    bool partition(json::array merged, const json::array& by, std::string_view mergeKey, const std::string& where, json::array& in,
                   json::array& out) {
        for (auto& v : merged) {
            std::optional<std::size_t> pos;
            if (mergeKey.empty()) {  // primitives: compared whole
                auto found = index(by, v, mergeKey, GoKind::String, where);
                if (!found) return false;
                pos = *found;
            } else {
                if (!v.is_object()) return fail(where, errBadArgType(kMapType, v));
                const json::value* k = v.get_object().if_contains(mergeKey);
                if (!k) return fail(where, errNoMergeKey(v, mergeKey));
                if (!findMapInSliceBasedOnKeyValue(by, mergeKey, *k, where, pos)) return false;
            }
            (pos ? in : out).push_back(std::move(v));
        }
        return true;
    }

    // normalizeElementOrder: patch items in patch order, the others in server order, then mergeSortedSlice.
    std::optional<json::array> normalizeElementOrder(json::array patchItems, json::array serverOnly, const json::array& patchOrder,
                                                     const json::array& serverOrder, std::string_view mergeKey, GoKind kind,
                                                     const std::string& where) {
        auto right = normalizeSliceOrder(std::move(patchItems), patchOrder, mergeKey, kind, where);
        auto left = right ? normalizeSliceOrder(std::move(serverOnly), serverOrder, mergeKey, kind, where) : none();
        if (!left) return std::nullopt;
        return mergeSortedSlice(std::move(*left), std::move(*right), serverOrder, mergeKey, kind, where);
    }

    // sort.SliceStable by position in `order`, `$patch: delete` items last. Go's comparator calls an
    // item missing from `order` smaller than anything; its insertion sort (all of SliceStable up to
    // 20 items) is run here.
    std::optional<json::array> normalizeSliceOrder(json::array toSort, const json::array& order, std::string_view mergeKey, GoKind kind,
                                                   const std::string& where) {
        json::array toDelete;
        if (kind == GoKind::Map) {
            if (!validateMergeKeyInLists(mergeKey, {&toSort, &order}, where)) return std::nullopt;
            json::array keep;
            for (auto& v : toSort) (isDeleteItem(v) ? toDelete : keep).push_back(std::move(v));
            toSort = std::move(keep);
        }
        auto pos = positions(toSort, order, mergeKey, kind, where);
        if (!pos) return std::nullopt;
        auto less = [&](std::size_t a, std::size_t b) { return !((*pos)[a] && (*pos)[b]) || *(*pos)[a] < *(*pos)[b]; };
        for (std::size_t i = 1; i < toSort.size(); ++i)
            for (std::size_t j = i; j > 0 && less(j, j - 1); --j) {
                std::swap(toSort[j], toSort[j - 1]);
                std::swap((*pos)[j], (*pos)[j - 1]);
            }
        for (auto& v : toDelete) toSort.push_back(std::move(v));
        return toSort;
    }

    // Each `left` item goes before the first `right` item that comes after it in `serverOrder`.
    std::optional<json::array> mergeSortedSlice(json::array left, json::array right, const json::array& serverOrder,
                                                std::string_view mergeKey, GoKind kind, const std::string& where) {
        auto li = positions(left, serverOrder, mergeKey, kind, where);
        auto ri = li ? positions(right, serverOrder, mergeKey, kind, where) : none();
        if (!ri) return std::nullopt;
        json::array out;
        std::size_t i = 0, j = 0;
        while (i < left.size() || j < right.size()) {
            bool takeLeft = j >= right.size() || (i < left.size() && (*li)[i] && (*ri)[j] && *(*li)[i] < *(*ri)[j]);
            out.push_back(std::move(takeLeft ? left[i++] : right[j++]));
        }
        return out;
    }

    bool validateMergeKeyInLists(std::string_view mergeKey, std::initializer_list<const json::array*> lists, const std::string& where) {
        for (const json::array* l : lists)
            for (auto const& v : *l) {
                if (!v.is_object()) return fail(where, errBadArgType(kMapType, v));
                if (!v.get_object().contains(mergeKey)) return fail(where, errNoMergeKey(v, mergeKey));
            }
        return true;
    }

    using Positions = std::vector<std::optional<std::size_t>>;

    std::optional<Positions> positions(const json::array& items, const json::array& order, std::string_view mergeKey, GoKind kind,
                                       const std::string& where) {
        Positions out;
        for (auto const& v : items) {
            auto pos = index(order, v, mergeKey, kind, where);
            if (!pos) return std::nullopt;
            out.push_back(*pos);
        }
        return out;
    }

    // index: where `v` is first in `order`, maps compared by their merge key (absent: nil).
    std::optional<std::optional<std::size_t>> index(const json::array& order, const json::value& v, std::string_view mergeKey,
                                                    GoKind kind, const std::string& where) {
        static const json::value kNil;
        auto key = [&](const json::value& e) -> const json::value& {
            if (kind != GoKind::Map) return e;
            const json::value* k = e.is_object() ? e.get_object().if_contains(mergeKey) : nullptr;
            return k ? *k : kNil;
        };
        for (std::size_t i = 0; i < order.size(); ++i) {
            auto eq = equal(key(v), key(order[i]), where);
            if (!eq) return std::nullopt;
            if (*eq) return std::optional<std::size_t>(i);
        }
        return std::optional<std::size_t>();
    }

    const PatchSchema& schema_;
};

}  // namespace

json::value strategicMerge(const json::value& original, const json::value& patch, Diagnostics& diag, const std::string& fieldPath,
                           const PatchSchema& schema) {
    if (patch.is_null()) return original;
    try {
        Merger m(schema);
        if (auto merged = m.run(original, patch, fieldPath)) return std::move(*merged);
        if (m.error) diag.add(m.error->path, m.error->message);
        else diag.add(fieldPath, "strategic merge failed");
    } catch (const std::exception& e) {
        diag.add(fieldPath, e.what());
    }
    return original;
}

}  // namespace trainer::core
