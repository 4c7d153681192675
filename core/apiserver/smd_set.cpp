// Field path sets; the contract is in smd_set.hpp.
#include "core/apiserver/smd_set.hpp"

#include <utility>

namespace trainer::core::apiserver::smd {

bool FieldSet::empty() const {
    if (!members.empty()) return false;
    for (auto const& [pe, c] : children)
        if (!c.empty()) return false;
    return true;
}

void FieldSet::insert(const Path& p) {
    if (p.empty()) return;
    FieldSet* s = this;
    for (std::size_t i = 0; i + 1 < p.size(); ++i) s = &s->children[p[i]];
    s->members.insert(p.back());
}

bool FieldSet::has(const Path& p) const {
    const FieldSet* s = this;
    for (std::size_t i = 0; i + 1 < p.size(); ++i) {
        auto it = s->children.find(p[i]);
        if (it == s->children.end()) return false;
        s = &it->second;
    }
    return !p.empty() && s->members.count(p.back()) > 0;
}

const FieldSet* FieldSet::child(const PathElement& pe) const {
    auto it = children.find(pe);
    return it == children.end() ? nullptr : &it->second;
}

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

}  // namespace trainer::core::apiserver::smd
