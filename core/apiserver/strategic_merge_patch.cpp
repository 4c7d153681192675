// Strategic merge patch as apimachinery's strategicpatch patch.go runs it; the contract is in
// strategic_merge_patch.hpp.
#include "core/apiserver/strategic_merge_patch.hpp"

#include "core/apiserver/go_text.hpp"
#include "core/apiserver/patch_result.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace trainer::core::apiserver::patching {

namespace {

using gotext::asDouble;
using gotext::GoKind;
using gotext::goKind;
using gotext::goTypeName;
using gotext::goValue;

constexpr std::string_view kDirective = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList";
constexpr std::string_view kSetElementOrder = "$setElementOrder";
constexpr std::string_view kErrNoListOfLists = "lists of lists are not supported";
constexpr std::string_view kErrBadPrimitiveList = "invalid patch format of primitive list";
constexpr std::string_view kErrBadRetainKeys = "invalid patch format of retainKeys";
constexpr std::string_view kErrBadSetElementOrder = "invalid patch format of setElementOrder list";
constexpr std::string_view kNilDereference = "runtime error: invalid memory address or nil pointer dereference";

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Go's == on two interface{} values: different dynamic types are unequal, two maps or two slices panic.
enum class GoEq { False, True, Panic };

GoEq goEqual(const json::value& a, const json::value& b) {
    GoKind k = goKind(a);
    if (k != goKind(b)) return GoEq::False;
    switch (k) {
    case GoKind::Nil: return GoEq::True;
    case GoKind::Map:
    case GoKind::Slice: return GoEq::Panic;
    case GoKind::Float64: return asDouble(a) == asDouble(b) ? GoEq::True : GoEq::False;
    default: return a == b ? GoEq::True : GoEq::False;
    }
}

// A hashable identity agreeing with goEqual on scalars; maps and slices keep only their kind.
std::string goIdentity(const json::value& v) {
    switch (goKind(v)) {
    case GoKind::Nil: return "n";
    case GoKind::Map: return "M";
    case GoKind::Slice: return "A";
    case GoKind::String: return "s" + std::string(v.get_string());
    case GoKind::Int64: return "i" + std::to_string(v.get_int64());
    case GoKind::Bool: return v.get_bool() ? "b1" : "b0";
    case GoKind::Float64: break;
    }
    double d = asDouble(v);
    char buf[40];
    auto r = std::to_chars(buf, buf + sizeof buf, d == 0 ? 0.0 : d);
    return "f" + std::string(buf, r.ptr);
}

// First position of each value in a list, answering like Go's linear scan with ==.
class FirstIndex {
public:
    void add(const json::value& v, std::size_t pos) { first_.try_emplace(goIdentity(v), pos); }
    // The first equal element's position; `panic` set when the scan would compare two maps or two slices.
    std::optional<std::size_t> find(const json::value& probe, bool& panic) const {
        auto it = first_.find(goIdentity(probe));
        if (it == first_.end()) return std::nullopt;
        if (probe.is_object() || probe.is_array()) {
            panic = true;
            return std::nullopt;
        }
        return it->second;
    }
    std::optional<std::size_t> position(const json::value& v) const {
        auto it = first_.find(goIdentity(v));
        return it == first_.end() ? std::nullopt : std::optional(it->second);
    }

private:
    std::unordered_map<std::string, std::size_t> first_;
};

bool isString(const json::value& v, std::string_view s) { return v.is_string() && v.get_string() == s; }

bool isDeleteDirective(const json::value& v) {
    if (!v.is_object()) return false;
    const json::value* d = v.get_object().if_contains(kDirective);
    return d && isString(*d, "delete");
}

// strings.SplitN(s, "/", 2) with the prefix checked: the key after the first "/".
std::optional<std::string> extractKey(std::string_view s, std::string_view prefix) {
    auto slash = s.find('/');
    if (slash == std::string_view::npos || s.substr(0, slash) != prefix) return std::nullopt;
    return std::string(s.substr(slash + 1));
}

std::string errNoMergeKey(const json::value& m, std::string_view key) {
    return "map: " + goValue(m) + " does not contain declared merge key: " + std::string(key);
}

std::string errBadArgType(std::string_view expected, const json::value& actual) {
    return "expected a " + std::string(expected) + ", but received a " + goTypeName(actual);
}

std::string errBadPatchType(const json::value& directive, const json::value& m) {
    return "unknown patch type: " + goValue(directive, 's') + " in map: " + goValue(m);
}

// removeDirectives: maps carrying $patch disappear (nullopt), recursively.
std::optional<json::value> removeDirectives(json::value v) {
    if (v.is_object()) {
        json::object& o = v.get_object();
        if (o.contains(kDirective)) return std::nullopt;
        for (auto it = o.begin(); it != o.end();) {
            auto kept = removeDirectives(std::move(it->value()));
            if (kept) {
                it->value() = std::move(*kept);
                ++it;
            } else {
                it = o.erase(it);
            }
        }
    } else if (v.is_array()) {
        json::array out;
        for (auto& e : v.get_array())
            if (auto kept = removeDirectives(std::move(e))) out.push_back(std::move(*kept));
        return json::value(std::move(out));
    }
    return v;
}

// discardNullValuesFromPatch: null members of maps go, recursively; null list items stay.
void discardNulls(json::value& v) {
    if (v.is_object()) {
        json::object& o = v.get_object();
        for (auto it = o.begin(); it != o.end();) {
            if (it->value().is_null()) {
                it = o.erase(it);
            } else {
                discardNulls(it->value());
                ++it;
            }
        }
    } else if (v.is_array()) {
        for (auto& e : v.get_array()) discardNulls(e);
    }
}

enum class SmpFailure { BadRequest, Invalid, Internal, Panic };

struct SmpError {
    SmpFailure kind;
    std::string message;
};

class StrategicMerger {
public:
    std::optional<SmpError> error;

    // mergeMap; nullopt with `error` set on failure.
    std::optional<json::object> mergeMap(json::object original, json::object patch, const Schema& schema) {
        if (patch.contains(kDirective)) return mapDirective(std::move(patch));
        if (!applyRetainKeys(original, patch) || !mergeElementOrder(original, patch, schema)) return std::nullopt;
        for (auto& kv : patch)
            if (!mergeField(original, kv.key(), kv.value(), schema)) return std::nullopt;
        return original;
    }

private:
    bool fail(SmpFailure kind, std::string message) {
        if (!error) error = SmpError{kind, std::move(message)};
        return false;
    }

    // handleDirectiveInMergeMap.
    [[gnu::noinline]] std::optional<json::object> mapDirective(json::object patch) {
        json::value d = patch.at(kDirective);
        if (isString(d, "replace")) {
            patch.erase(kDirective);
            return patch;
        }
        if (isString(d, "delete")) return json::object();
        fail(SmpFailure::Internal, errBadPatchType(d, json::value(std::move(patch))));
        return std::nullopt;
    }

    // applyRetainKeysDirective.
    [[gnu::noinline]] bool applyRetainKeys(json::object& original, json::object& patch) {
        auto it = patch.find(kRetainKeys);
        if (it == patch.end()) return true;
        json::value list = std::move(it->value());
        patch.erase(it);
        if (!list.is_array()) return fail(SmpFailure::BadRequest, std::string(kErrBadRetainKeys));
        std::unordered_set<std::string> keep;
        for (auto const& v : list.get_array()) {
            if (v.is_object() || v.is_array())
                return fail(SmpFailure::Panic, "runtime error: hash of unhashable type " + goTypeName(v));
            if (v.is_string()) keep.insert(std::string(v.get_string()));
        }
        for (auto const& kv : patch) {
            if (kv.value().is_null() || startsWith(kv.key(), kDeleteFromPrimitiveList) || startsWith(kv.key(), kSetElementOrder)) continue;
            if (!keep.count(std::string(kv.key()))) return fail(SmpFailure::BadRequest, std::string(kErrBadRetainKeys));
        }
        for (auto o = original.begin(); o != original.end();) {
            if (keep.count(std::string(o->key()))) ++o;
            else o = original.erase(o);
        }
        return true;
    }

    // One member of the patch map merged into the original map (the loop body of mergeMap). The
    // recursion through nested maps runs through here, so the rarer cases live in helpers that
    // are kept out of this frame.
    bool mergeField(json::object& original, std::string_view key, json::value& patchV, const Schema& schema) {
        if (startsWith(key, kDeleteFromPrimitiveList)) return mergeDeleteList(original, key, patchV, schema);
        if (patchV.is_null()) {
            original.erase(key);
            return true;
        }
        json::value* cur = original.if_contains(key);
        if (!cur || goKind(*cur) != goKind(patchV)) return takePatchValue(original, key, patchV);
        if (patchV.is_array()) return mergeChildList(*cur, key, patchV, schema, false);
        if (!patchV.is_object()) {
            *cur = std::move(patchV);
            return true;
        }
        PatchMeta meta = lookupPatchMeta(schema, key);
        if (meta.strategy == "replace") {
            *cur = std::move(patchV);
            return true;
        }
        auto merged = mergeMap(std::move(cur->get_object()), std::move(patchV.get_object()), meta.sub);
        if (!merged) return false;
        *cur = std::move(*merged);
        return true;
    }

    // A value the original lacks or holds with another type: the patch value, cleaned.
    [[gnu::noinline]] static bool takePatchValue(json::object& original, std::string_view key, json::value& patchV) {
        discardNulls(patchV);
        if (auto kept = removeDirectives(std::move(patchV))) original[key] = std::move(*kept);
        else original.erase(key);
        return true;
    }

    // $deleteFromPrimitiveList/<list>: the parallel list of items to drop from <list>.
    [[gnu::noinline]] bool mergeDeleteList(json::object& original, std::string_view key, json::value& patchV, const Schema& schema) {
        auto listKey = extractKey(key, kDeleteFromPrimitiveList);
        if (!listKey) return fail(SmpFailure::BadRequest, std::string(kErrBadPrimitiveList));
        std::string target = listKey->empty() ? std::string(key) : *listKey;
        if (patchV.is_null()) {
            original.erase(target);
            return true;
        }
        json::value* cur = original.if_contains(target);
        if (!cur || goKind(*cur) != goKind(patchV)) return true;
        if (patchV.is_array()) return mergeChildList(*cur, target, patchV, schema, true);
        if (patchV.is_object()) {
            PatchMeta meta = lookupPatchMeta(schema, target);
            if (meta.strategy == "replace") {
                *cur = std::move(patchV);
                return true;
            }
            auto merged = mergeMap(std::move(cur->get_object()), std::move(patchV.get_object()), meta.sub);
            if (!merged) return false;
            *cur = std::move(*merged);
            return true;
        }
        *cur = std::move(patchV);
        return true;
    }

    // mergeSliceHandler: merged by the field's strategy, else replaced by the patch list.
    [[gnu::noinline]] bool mergeChildList(json::value& cur, std::string_view key, json::value& patchV, const Schema& schema, bool deleteList) {
        PatchMeta meta = lookupPatchMeta(schema, key);
        if (meta.strategy != "merge" && !deleteList) {
            cur = std::move(patchV);
            return true;
        }
        auto merged = mergeSlice(std::move(cur.get_array()), std::move(patchV.get_array()), meta, deleteList);
        if (!merged) return false;
        cur = std::move(*merged);
        return true;
    }

    // sliceElementType: the one Go type of all items.
    std::optional<GoKind> sliceElementType(std::initializer_list<const json::array*> lists) {
        std::optional<GoKind> prev;
        for (const json::array* l : lists) {
            for (auto const& v : *l) {
                GoKind k = goKind(v);
                if (!prev) {
                    if (k == GoKind::Nil) return fail(SmpFailure::Panic, std::string(kNilDereference)), std::nullopt;
                    if (k == GoKind::Slice) return fail(SmpFailure::Invalid, std::string(kErrNoListOfLists)), std::nullopt;
                    prev = k;
                } else if (k != *prev) {
                    std::string all = "[";
                    for (const json::array* each : lists) all += (all.size() > 1 ? " " : "") + goValue(json::value(*each));
                    return fail(SmpFailure::Internal, "list element types are not identical: " + all + "]"), std::nullopt;
                }
            }
        }
        if (!prev) fail(SmpFailure::Internal, "no elements in any of the given slices");
        return prev;
    }

    // mergeSlice for a list with the merge strategy (or a $deleteFromPrimitiveList list).
    [[gnu::noinline]] std::optional<json::array> mergeSlice(json::array original, json::array patch, const PatchMeta& meta, bool deleteList) {
        if (original.empty() && patch.empty()) return original;
        auto kind = sliceElementType({&original, &patch});
        if (!kind) return std::nullopt;
        std::string_view mergeKey = meta.mergeKey;
        if (*kind != GoKind::Map) {
            if (deleteList) return deleteFromSlice(original, patch);
            json::array merged = original;
            merged.insert(merged.end(), patch.begin(), patch.end());
            return normalizedMerge(dedupe(std::move(merged)), patch, original, mergeKey, *kind);
        }
        // The element's Go type is named in this message; only string lists lack a merge key.
        if (mergeKey.empty()) return fail(SmpFailure::Internal, "cannot merge lists without merge key for string"), std::nullopt;
        if (!specialElements(original, patch, mergeKey)) return std::nullopt;
        json::array serverOrder = original;
        auto merged = mergeWithoutSpecial(std::move(original), patch, mergeKey, meta.sub);
        if (!merged) return std::nullopt;
        return normalizedMerge(std::move(*merged), patch, serverOrder, mergeKey, *kind);
    }

    // The tail of mergeSlice: items split by presence in the patch, each part in its own order.
    std::optional<json::array> normalizedMerge(json::array merged, const json::array& patch, const json::array& serverOrder,
                                               std::string_view mergeKey, GoKind kind) {
        json::array patchItems, serverOnly;
        if (!partition(std::move(merged), patch, mergeKey, patchItems, serverOnly)) return std::nullopt;
        return normalizeElementOrder(std::move(patchItems), std::move(serverOnly), patch, serverOrder, mergeKey, kind);
    }

    static json::array dedupe(json::array items) {
        std::unordered_set<std::string> seen;
        json::array out;
        for (auto& v : items)
            if (seen.insert(goIdentity(v)).second) out.push_back(std::move(v));
        return out;
    }

    static json::array deleteFromSlice(const json::array& current, const json::array& toDelete) {
        std::unordered_set<std::string> drop;
        for (auto const& v : toDelete) drop.insert(goIdentity(v));
        json::array out;
        for (auto const& v : current)
            if (!drop.count(goIdentity(v))) out.push_back(v);
        return out;
    }

    // mergeSliceWithSpecialElements: $patch delete / replace items of a list of maps. The deletions
    // are collected and applied in one pass (upstream rescans the list for each).
    bool specialElements(json::array& original, json::array& patch, std::string_view mergeKey) {
        json::array plain;
        bool replace = false;
        std::unordered_set<std::string> doomed;
        for (auto& v : patch) {
            const json::value* d = v.get_object().if_contains(kDirective);
            if (!d) {
                plain.push_back(std::move(v));
            } else if (isString(*d, "delete")) {
                const json::value* key = v.get_object().if_contains(mergeKey);
                if (!key) return fail(SmpFailure::Internal, errNoMergeKey(v, mergeKey));
                if (key->is_object() || key->is_array()) {
                    // Go's == panics on the first list item whose key is a map (or slice) too; no other item can match.
                    if (hasKeyOfKind(original, mergeKey, goKind(*key)))
                        return fail(SmpFailure::Panic, "runtime error: comparing uncomparable type " + goTypeName(*key));
                    continue;
                }
                doomed.insert(goIdentity(*key));
            } else if (isString(*d, "replace")) {
                replace = true;
            } else if (isString(*d, "merge")) {
                return fail(SmpFailure::Internal, "merging lists cannot yet be specified in the patch");
            } else {
                return fail(SmpFailure::Internal, errBadPatchType(*d, v));
            }
        }
        if (!doomed.empty()) {
            json::array kept;
            for (auto& e : original) {
                const json::value* k = e.get_object().if_contains(mergeKey);
                if (!k || !doomed.count(goIdentity(*k))) kept.push_back(std::move(e));
            }
            original = std::move(kept);
        }
        if (replace) {
            original = std::move(plain);
            patch.clear();
        } else {
            patch = std::move(plain);
        }
        return true;
    }

    static bool hasKeyOfKind(const json::array& list, std::string_view mergeKey, GoKind kind) {
        return std::any_of(list.begin(), list.end(), [&](const json::value& e) {
            const json::value* k = e.get_object().if_contains(mergeKey);
            return k && goKind(*k) == kind;
        });
    }

    // mergeSliceWithoutSpecialElements: patch maps merged into the original map with the same key, else appended.
    std::optional<json::array> mergeWithoutSpecial(json::array original, const json::array& patch, std::string_view mergeKey,
                                                   const Schema& schema) {
        FirstIndex index;
        for (std::size_t i = 0; i < original.size(); ++i)
            if (const json::value* k = original[i].get_object().if_contains(mergeKey)) index.add(*k, i);
        for (auto const& v : patch) {
            const json::value* key = v.get_object().if_contains(mergeKey);
            if (!key) return fail(SmpFailure::Internal, errNoMergeKey(v, mergeKey)), std::nullopt;
            bool panic = false;
            auto pos = index.find(*key, panic);
            if (panic) return fail(SmpFailure::Panic, "runtime error: comparing uncomparable type " + goTypeName(*key)), std::nullopt;
            if (!pos) {
                index.add(*key, original.size());
                original.push_back(v);
                continue;
            }
            auto merged = mergeMap(std::move(original[*pos].get_object()), v.get_object(), schema);
            if (!merged) return std::nullopt;
            original[*pos] = std::move(*merged);
        }
        return original;
    }

    // partitionPrimitivesByPresentInList / partitionMapsByPresentInList.
    bool partition(json::array merged, const json::array& by, std::string_view mergeKey, json::array& in, json::array& out) {
        FirstIndex index;
        std::optional<std::size_t> firstNonMap;
        for (std::size_t i = 0; i < by.size(); ++i) {
            if (mergeKey.empty()) {
                if (by[i].is_object() || by[i].is_array())
                    return fail(SmpFailure::Panic, "runtime error: hash of unhashable type " + goTypeName(by[i]));
                index.add(by[i], i);
            } else if (!by[i].is_object()) {
                if (!firstNonMap) firstNonMap = i;
            } else if (const json::value* k = by[i].get_object().if_contains(mergeKey)) {
                index.add(*k, i);
            }
        }
        for (auto& v : merged) {
            std::optional<std::size_t> pos;
            bool panic = false;
            if (mergeKey.empty()) {
                if (v.is_object() || v.is_array()) return fail(SmpFailure::Panic, "runtime error: hash of unhashable type " + goTypeName(v));
                pos = index.find(v, panic);
            } else {
                if (!v.is_object()) return fail(SmpFailure::Internal, errBadArgType("map[string]interface {}", v));
                const json::value* k = v.get_object().if_contains(mergeKey);
                if (!k) return fail(SmpFailure::Internal, errNoMergeKey(v, mergeKey));
                pos = index.find(*k, panic);
                if (firstNonMap && (!pos || *firstNonMap < *pos) && !panic)
                    return fail(SmpFailure::Internal, "value for key " + std::to_string(*firstNonMap) + " is not a map");
            }
            if (panic) return fail(SmpFailure::Panic, "runtime error: comparing uncomparable type " + goTypeName(v));
            (pos ? in : out).push_back(std::move(v));
        }
        return true;
    }

    // validateMergeKeyInLists.
    bool validateMergeKeys(std::string_view mergeKey, std::initializer_list<const json::array*> lists) {
        for (const json::array* l : lists) {
            for (auto const& v : *l) {
                if (!v.is_object()) return fail(SmpFailure::Internal, errBadArgType("map[string]interface {}", v));
                if (!v.get_object().contains(mergeKey)) return fail(SmpFailure::Internal, errNoMergeKey(v, mergeKey));
            }
        }
        return true;
    }

    // The value `index` compares: the merge key's value for maps (nil when absent), the item itself otherwise.
    static const json::value& orderValue(const json::value& item, std::string_view mergeKey, GoKind kind) {
        static const json::value kNil;
        if (kind != GoKind::Map) return item;
        if (!item.is_object()) return kNil;
        const json::value* v = item.get_object().if_contains(mergeKey);
        return v ? *v : kNil;
    }

    static FirstIndex orderIndex(const json::array& order, std::string_view mergeKey, GoKind kind) {
        FirstIndex index;
        for (std::size_t i = 0; i < order.size(); ++i) index.add(orderValue(order[i], mergeKey, kind), i);
        return index;
    }

    // Positions of the items in the order list (index()); nullopt after a panic.
    std::optional<std::vector<std::optional<std::size_t>>> positions(const json::array& items, const FirstIndex& index,
                                                                     std::string_view mergeKey, GoKind kind) {
        std::vector<std::optional<std::size_t>> pos;
        for (auto const& item : items) {
            bool panic = false;
            const json::value& v = orderValue(item, mergeKey, kind);
            pos.push_back(index.find(v, panic));
            if (panic) return fail(SmpFailure::Panic, "runtime error: comparing uncomparable type " + goTypeName(v)), std::nullopt;
        }
        return pos;
    }

    // normalizeSliceOrder: sorted stably by position in `order`, $patch: delete items last.
    std::optional<json::array> normalizeSliceOrder(json::array toSort, const json::array& order, std::string_view mergeKey, GoKind kind) {
        json::array toDelete;
        if (kind == GoKind::Map) {
            if (!validateMergeKeys(mergeKey, {&toSort, &order})) return std::nullopt;
            json::array keep;
            for (auto& v : toSort) (isDeleteDirective(v) ? toDelete : keep).push_back(std::move(v));
            toSort = std::move(keep);
        }
        auto pos = positions(toSort, orderIndex(order, mergeKey, kind), mergeKey, kind);
        if (!pos) return std::nullopt;
        std::vector<std::size_t> perm(toSort.size());
        for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
        // Go's comparator puts an item without a position before anything; with all positions known
        // it is a strict order and any stable sort agrees with sort.SliceStable.
        auto rank = [&](std::size_t i) { return (*pos)[i] ? static_cast<std::ptrdiff_t>(*(*pos)[i]) : -1; };
        std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
        json::array out;
        for (std::size_t i : perm) out.push_back(std::move(toSort[i]));
        for (auto& v : toDelete) out.push_back(std::move(v));
        return out;
    }

    // normalizeElementOrder + mergeSortedSlice: server-only items interleaved into the patch items.
    std::optional<json::array> normalizeElementOrder(json::array patchItems, json::array serverOnly, const json::array& patchOrder,
                                                     const json::array& serverOrder, std::string_view mergeKey, GoKind kind) {
        auto right = normalizeSliceOrder(std::move(patchItems), patchOrder, mergeKey, kind);
        if (!right) return std::nullopt;
        auto left = normalizeSliceOrder(std::move(serverOnly), serverOrder, mergeKey, kind);
        if (!left) return std::nullopt;
        FirstIndex index = orderIndex(serverOrder, mergeKey, kind);
        auto li = positions(*left, index, mergeKey, kind);
        auto ri = li ? positions(*right, index, mergeKey, kind) : std::nullopt;
        if (!ri) return std::nullopt;
        json::array out;
        std::size_t i = 0, j = 0;
        while (i < left->size() || j < right->size()) {
            bool takeLeft = j >= right->size() ||
                            (i < left->size() && (*li)[i] && (*ri)[j] && *(*li)[i] < *(*ri)[j]);
            if (takeLeft) out.push_back(std::move((*left)[i++]));
            else out.push_back(std::move((*right)[j++]));
        }
        return out;
    }

    // validatePatchWithSetOrderList.
    bool validateOrder(const json::array& patchList, const json::array& order, std::string_view mergeKey) {
        if (order.empty() || patchList.empty()) return true;
        std::vector<const json::value*> items;
        for (auto const& v : patchList) {
            if (!mergeKey.empty()) {
                if (!v.is_object()) return fail(SmpFailure::Internal, errBadArgType("map[string]interface {}", v));
                if (isDeleteDirective(v)) continue;
            }
            items.push_back(&v);
        }
        std::size_t pi = 0, si = 0;
        while (pi < items.size() && si < order.size()) {
            const json::value& item = *items[pi];
            if (item.is_object() && item.get_object().contains(kDirective)) {
                ++pi;
                continue;
            }
            GoEq eq = GoEq::False;
            if (mergeKey.empty()) {
                eq = goEqual(item, order[si]);
            } else {
                if (!order[si].is_object()) return fail(SmpFailure::Internal, errBadArgType("map[string]interface {}", order[si]));
                const json::value* l = item.get_object().if_contains(mergeKey);
                if (!l) return fail(SmpFailure::Internal, errNoMergeKey(item, mergeKey));
                const json::value* r = order[si].get_object().if_contains(mergeKey);
                if (!r) return fail(SmpFailure::Internal, errNoMergeKey(order[si], mergeKey));
                eq = goEqual(*l, *r);
            }
            if (eq == GoEq::Panic) return fail(SmpFailure::Panic, "runtime error: comparing uncomparable type " + goTypeName(item));
            if (eq == GoEq::True) ++pi;
            ++si;
        }
        if (pi < items.size() && si >= order.size())
            return fail(SmpFailure::Internal, "The order in patch list:\n" + goValue(json::value(patchList)) + "\n doesn't match " +
                                                  std::string(kSetElementOrder) + " list:\n" + goValue(json::value(order)) + "\n");
        return true;
    }

    // mergePatchIntoOriginal: each $setElementOrder/<list> directive with its list.
    [[gnu::noinline]] bool mergeElementOrder(json::object& original, json::object& patch, const Schema& schema) {
        std::vector<std::string> keys;
        for (auto const& kv : patch)
            if (startsWith(kv.key(), kSetElementOrder)) keys.emplace_back(kv.key());
        for (auto const& key : keys) {
            json::value order = std::move(patch.at(key));
            patch.erase(key);
            if (!order.is_array()) return fail(SmpFailure::Internal, errBadArgType("[]interface {}", order));
            auto listKey = extractKey(key, kSetElementOrder);
            if (!listKey) return fail(SmpFailure::BadRequest, std::string(kErrBadSetElementOrder));
            if (!mergeOrderedList(original, patch, *listKey, order.get_array(), schema)) return false;
        }
        return true;
    }

    bool mergeOrderedList(json::object& original, json::object& patch, const std::string& listKey, const json::array& order,
                          const Schema& schema) {
        static const json::array kEmpty;
        const json::value* orig = original.if_contains(listKey);
        const json::value* pat = patch.if_contains(listKey);
        if (orig && !orig->is_array()) return fail(SmpFailure::Internal, errBadArgType("[]interface {}", *orig));
        if (pat && !pat->is_array()) return fail(SmpFailure::Internal, errBadArgType("[]interface {}", *pat));
        const json::array& origList = orig ? orig->get_array() : kEmpty;
        const json::array& patList = pat ? pat->get_array() : kEmpty;
        PatchMeta meta = lookupPatchMeta(schema, listKey);
        if (!validateOrder(patList, order, meta.mergeKey)) return false;
        if (!orig && !pat) return true;
        json::array merged;
        if (!pat) {
            merged = origList;
        } else if (!orig) {
            merged = removeDirectives(json::value(patList))->get_array();
        } else if (meta.strategy == "merge") {
            auto m = mergeSlice(origList, patList, meta, false);
            if (!m) return false;
            merged = std::move(*m);
        } else {
            merged = patList;
        }
        json::array patchItems, serverOnly;
        if (!partition(std::move(merged), order, meta.mergeKey, patchItems, serverOnly)) return false;
        auto kind = sliceElementType({&origList, &patList});
        if (!kind) return false;
        json::array serverOrder = origList;
        auto both = normalizeElementOrder(std::move(patchItems), std::move(serverOnly), order, serverOrder, meta.mergeKey, *kind);
        if (!both) return false;
        original[listKey] = std::move(*both);
        patch.erase(listKey);
        return true;
    }
};

PatchResult smpFailure(const SmpError& e) {
    switch (e.kind) {
    case SmpFailure::BadRequest: return badRequest(e.message);
    case SmpFailure::Invalid: return genericInvalid(e.message);
    case SmpFailure::Internal: return internalError(e.message);
    case SmpFailure::Panic: return panicked(e.message);
    }
    return internalError(e.message);
}

}  // namespace

PatchResult applyStrategicMergePatch(json::object original, json::value patch, const Schema& root) {
    StrategicMerger merger;
    std::optional<json::object> merged = std::move(original);
    if (patch.is_object()) merged = merger.mergeMap(std::move(*merged), std::move(patch.get_object()), root);
    if (!merged) return smpFailure(*merger.error);
    return success(json::value(std::move(*merged)), {});
}

}  // namespace trainer::core::apiserver::patching
