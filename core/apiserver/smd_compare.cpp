// The comparison of two objects field by field; the contract is in smd_compare.hpp.
#include "core/apiserver/smd_compare.hpp"

#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

namespace trainer::core::apiserver::smd {

namespace {

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

}  // namespace

Comparison compareObjects(const json::value& l, const json::value& r, const Shapes& sh) {
    Comparison c;
    CompareWalk w{sh, c, {}, {}};
    w.value(&l, &r);
    return c;
}

}  // namespace trainer::core::apiserver::smd
