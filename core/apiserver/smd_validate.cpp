// Validation of an applied configuration; the contract is in smd_validate.hpp.
#include "core/apiserver/smd_validate.hpp"

#include <cstdint>
#include <set>
#include <utility>

namespace trainer::core::apiserver::smd {

namespace {

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

}  // namespace

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

}  // namespace trainer::core::apiserver::smd
