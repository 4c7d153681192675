// The fields a value sets; the contract is in smd_to_field_set.hpp.
#include "core/apiserver/smd_to_field_set.hpp"

#include <optional>
#include <set>

namespace trainer::core::apiserver::smd {

namespace {

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

}  // namespace

FieldSet toFieldSet(const json::value& v, const Shapes& sh) {
    FieldSet out;
    Path path;
    Names names;
    toSet(v, path, names, sh, out);
    return out;
}

}  // namespace trainer::core::apiserver::smd
