// Field removal and struct-field ownership; the contract is in smd_remove.hpp.
#include "core/apiserver/smd_remove.hpp"

#include <optional>
#include <utility>

namespace trainer::core::apiserver::smd {

namespace {

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

FieldSet ensureNamedUnder(const FieldSet& s, Names& names, const Shapes& sh) {
    FieldSet out;
    out.members = s.members;
    bool declared = sh.at(names).object == ListShape::Struct;
    for (auto const& [pe, c] : s.children) {
        if (pe.type != PathElement::Field) {
            out.children.emplace(pe, ensureNamedUnder(c, names, sh));
            continue;
        }
        if (declared) out.members.insert(pe);
        names.push_back(pe.name);
        out.children.emplace(pe, ensureNamedUnder(c, names, sh));
        names.pop_back();
    }
    return out;
}

}  // namespace

json::value removeFrom(const json::value& v, const FieldSet& toRemove, const Shapes& sh) {
    Names names;
    auto r = removeItems(v, toRemove, names, sh);
    return r ? std::move(*r) : json::value(json::object());
}

FieldSet ensureNamed(const FieldSet& s, const Shapes& sh) {
    Names names;
    return ensureNamedUnder(s, names, sh);
}

}  // namespace trainer::core::apiserver::smd
