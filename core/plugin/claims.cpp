#include "core/plugin/claims.hpp"

#include <array>

namespace trainer::core {

namespace {

// Is `p` a prefix pattern: at least one character, then `*`?
bool isPrefixPattern(std::string_view p) { return p.size() > 1 && p.back() == '*'; }

constexpr std::array<std::string_view, 2> kNameKinds{kEnvClaimPrefix, kVolumeClaimPrefix};
constexpr std::array<std::string_view, 2> kDescriptiveKinds{"featureGate:", kEnvRefusalClaimPrefix};

// The name kind `claim` belongs to ("env:"), or "" when it is no name claim.
std::string_view nameKindOf(std::string_view claim) {
    for (auto k : kNameKinds)
        if (claim.substr(0, k.size()) == k) return k;
    return {};
}

}  // namespace

bool namePatternMatches(std::string_view pattern, std::string_view name) {
    if (!isPrefixPattern(pattern)) return pattern == name;
    std::string_view prefix = pattern.substr(0, pattern.size() - 1);
    return name.substr(0, prefix.size()) == prefix;
}

bool claimCovers(std::string_view claim, std::string_view kindPrefix, std::string_view name) {
    if (claim.substr(0, kindPrefix.size()) != kindPrefix) return false;
    return namePatternMatches(claim.substr(kindPrefix.size()), name);
}

bool isExclusiveClaim(std::string_view claim) {
    for (auto k : kDescriptiveKinds)
        if (claim.substr(0, k.size()) == k) return false;
    return true;
}

bool claimsConflict(std::string_view a, std::string_view b) {
    if (!isExclusiveClaim(a) || !isExclusiveClaim(b)) return false;
    if (a == b) return true;
    std::string_view kind = nameKindOf(a);
    if (kind.empty() || nameKindOf(b) != kind) return false;
    std::string_view pa = a.substr(kind.size()), pb = b.substr(kind.size());
    // Two patterns share a name when one's literal part is a prefix of the other's: a literal
    // name matched by the other pattern, or two prefixes one of which extends the other.
    auto literal = [](std::string_view p) { return isPrefixPattern(p) ? p.substr(0, p.size() - 1) : p; };
    if (isPrefixPattern(pa) && namePatternMatches(pa, literal(pb))) return true;
    if (isPrefixPattern(pb) && namePatternMatches(pb, literal(pa))) return true;
    return false;
}

}  // namespace trainer::core
