// Whether a generated plugin's name and claims collide with a loaded plugin's: what the
// registry would refuse at load (its own rule, core/plugin/claims.hpp), said before any file
// is written.
#include "core/cli/scaffold.hpp"
#include "core/plugin/claims.hpp"

namespace trainer::core::cli::scaffold {
namespace {

// The policy name of a policy claim ("mlPolicy.x", "podGroupPolicy.x" → "x"), else "".
std::string_view policyName(std::string_view claim) {
    for (std::string_view kind : {"mlPolicy.", "podGroupPolicy."})
        if (claim.starts_with(kind)) return claim.substr(kind.size());
    return {};
}

}  // namespace

std::optional<std::string> claimConflict(const Names& names, const std::vector<std::string>& ours,
                                         std::string_view theirName, const std::vector<std::string>& theirs) {
    if (theirName == names.name) return "a loaded plugin is called \"" + names.name + "\"";
    for (auto const& t : theirs) {
        if (policyName(t) == names.name) return "its policy \"" + t + "\" has that name";
        for (auto const& o : ours)
            if (claimsConflict(o, t)) return "its claim \"" + t + "\" overlaps \"" + o + "\"";
    }
    return std::nullopt;
}

}  // namespace trainer::core::cli::scaffold
