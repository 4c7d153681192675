// The merge of a live object and an applied configuration; the contract is in smd_merge.hpp.
#include "core/apiserver/smd_merge.hpp"

#include <map>
#include <set>
#include <string_view>
#include <utility>

namespace trainer::core::apiserver::smd {

namespace {

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

}  // namespace

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

}  // namespace trainer::core::apiserver::smd
