// Path elements: ordering and text; the contract is in smd_path.hpp.
#include "core/apiserver/smd_path.hpp"

namespace trainer::core::apiserver::smd {

namespace {

int keyCompare(const PathElement& a, const PathElement& b) {
    for (std::size_t i = 0; i < a.key.size() && i < b.key.size(); ++i) {
        if (int c = a.key[i].first.compare(b.key[i].first); c != 0) return c < 0 ? -1 : 1;
        if (int c = valueCompare(a.key[i].second, b.key[i].second); c != 0) return c;
    }
    return cmp3(a.key.size(), b.key.size());
}

}  // namespace

PathElement fieldElement(std::string_view name) {
    PathElement pe;
    pe.name = std::string(name);
    return pe;
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

bool peEquals(const PathElement& a, const PathElement& b) { return peCompare(a, b) == 0; }

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

}  // namespace trainer::core::apiserver::smd
