// Whether a generated plugin's name and claims collide with a loaded plugin's: what the
// registry would refuse at load, said before any file is written.
#include "core/cli/scaffold.hpp"

namespace trainer::core::cli::scaffold {
namespace {

constexpr std::string_view kEnv = "env:";

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// The policy name of a policy claim ("mlPolicy.x", "podGroupPolicy.x" → "x"), else "".
std::string_view policyName(std::string_view claim) {
    for (std::string_view kind : {"mlPolicy.", "podGroupPolicy."})
        if (startsWith(claim, kind)) return claim.substr(kind.size());
    return {};
}

// Two env claims overlap when they name one variable: equal, or a prefix claim (`env:A_*`)
// covering the other's name or prefix.
bool envOverlap(std::string_view a, std::string_view b) {
    if (!startsWith(a, kEnv) || !startsWith(b, kEnv)) return false;
    a.remove_prefix(kEnv.size());
    b.remove_prefix(kEnv.size());
    const bool aPrefix = a.ends_with('*'), bPrefix = b.ends_with('*');
    if (aPrefix) a.remove_suffix(1);
    if (bPrefix) b.remove_suffix(1);
    if (aPrefix && startsWith(b, a)) return true;
    if (bPrefix && startsWith(a, b)) return true;
    return a == b;
}

}  // namespace

std::optional<std::string> claimConflict(const Names& names, const std::vector<std::string>& ours,
                                         std::string_view theirName, const std::vector<std::string>& theirs) {
    if (theirName == names.name) return "a loaded plugin is called \"" + names.name + "\"";
    for (auto const& t : theirs) {
        if (policyName(t) == names.name) return "its policy \"" + t + "\" has that name";
        for (auto const& o : ours)
            if (o == t || envOverlap(o, t)) return "its claim \"" + t + "\" overlaps \"" + o + "\"";
    }
    return std::nullopt;
}

}  // namespace trainer::core::cli::scaffold
