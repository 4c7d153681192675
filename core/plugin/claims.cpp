#include "core/plugin/claims.hpp"

#include <array>
#include <map>

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

// A name claim's literal part: the name, or a pattern's prefix ("PET_" of "PET_*").
std::string_view literalOf(std::string_view pattern) {
    return isPrefixPattern(pattern) ? pattern.substr(0, pattern.size() - 1) : pattern;
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
    if (isPrefixPattern(pa) && namePatternMatches(pa, literalOf(pb))) return true;
    if (isPrefixPattern(pb) && namePatternMatches(pb, literalOf(pa))) return true;
    return false;
}

// Name claims of one kind conflict when one is a pattern whose prefix starts the other's literal
// part: held literals starting with a new pattern's prefix are a range of the sorted map, and held
// patterns whose prefix starts the new literal part are among its prefixes of the lengths that
// held patterns have (patternLengths).
const ClaimIndex::Held* ClaimIndex::find(std::string_view claim) const {
    if (!isExclusiveClaim(claim)) return nullptr;
    if (auto it = exact_.find(claim); it != exact_.end()) return &it->second;
    std::string_view kind = nameKindOf(claim);
    auto held = kind.empty() ? kinds_.end() : kinds_.find(kind);
    if (held == kinds_.end()) return nullptr;
    const auto& names = held->second.names;
    const std::string_view pattern = claim.substr(kind.size()), literal = literalOf(pattern);
    if (isPrefixPattern(pattern))
        if (auto it = names.lower_bound(literal); it != names.end() && it->first.starts_with(literal))
            return it->second.literal ? it->second.literal : it->second.pattern;
    // A held pattern covering this claim has a literal part that is a prefix of this one's: only
    // the lengths some held pattern has are looked up.
    for (size_t n : held->second.patternLengths) {
        if (n > literal.size()) break;
        if (auto it = names.find(literal.substr(0, n)); it != names.end() && it->second.pattern) return it->second.pattern;
    }
    return nullptr;
}

void ClaimIndex::add(std::string_view claim, const void* owner) {
    if (!isExclusiveClaim(claim)) return;
    auto [it, added] = exact_.emplace(std::string(claim), Held{{}, owner});
    if (!added) return;
    it->second.claim = it->first;
    if (std::string_view kind = nameKindOf(claim); !kind.empty()) {
        const std::string_view pattern = claim.substr(kind.size());
        Kind& held = kinds_[std::string(kind)];
        const std::string_view literal = literalOf(pattern);
        Name& name = held.names[std::string(literal)];
        if (isPrefixPattern(pattern)) {
            name.pattern = &it->second;
            held.patternLengths.insert(literal.size());
        } else {
            name.literal = &it->second;
        }
    }
}

}  // namespace trainer::core
