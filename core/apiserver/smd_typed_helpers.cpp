// Helpers of the typed walks; the contract is in smd_typed_helpers.hpp.
#include "core/apiserver/smd_typed_helpers.hpp"

#include "core/apiserver/field_manager_go_text.hpp"

#include <algorithm>

namespace trainer::core::apiserver::smd {

namespace {

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

}  // namespace

PeResult itemPe(const ListShape& shape, const json::value& item) {
    return shape.kind == ListShape::Map && !shape.keys.empty() ? keyedItemPe(shape, item) : setItemPe(item);
}

Atom atomOf(const json::value& v) { return v.is_object() ? Atom::Map : v.is_array() ? Atom::List : Atom::Scalar; }

bool present(const json::value* v) { return v && !v->is_null(); }

Atom atomFor(const json::value* l, const json::value* r) {
    return present(r) ? atomOf(*r) : present(l) ? atomOf(*l) : Atom::Scalar;
}

const json::object* asObject(const json::value* v) { return v && v->is_object() ? &v->get_object() : nullptr; }
const json::array* asArray(const json::value* v) { return v && v->is_array() ? &v->get_array() : nullptr; }

}  // namespace trainer::core::apiserver::smd
