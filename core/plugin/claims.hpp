// Name claims (ABI rule 12, sdk/docs/abi.md): `env:NAME` and `volume:NAME` make a name one
// plugin's; `env:PREFIX*` (a non-empty prefix, then `*`) claims every name starting with the
// prefix. Which claims are ownership at all: `featureGate:<Name>` and `envRefusal:<message>`
// only describe the plugin, so two plugins may both hold them.
#pragma once

#include "core/plugin/string_hash.hpp"

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

namespace trainer::core {

inline constexpr std::string_view kEnvClaimPrefix = "env:";
inline constexpr std::string_view kVolumeClaimPrefix = "volume:";
// `envRefusal:<message>`: how the host words its refusal of a TrainJob setting one of the
// plugin's env names (reserved_env.hpp); `{name}` in the message stands for the name.
inline constexpr std::string_view kEnvRefusalClaimPrefix = "envRefusal:";

// Does the name pattern `pattern` ("PET_NNODES", or "PET_*") match `name`?
bool namePatternMatches(std::string_view pattern, std::string_view name);

// Does `claim` cover the name `name` of claim kind `kindPrefix` ("env:", "volume:")?
// claimCovers("env:PET_*", "env:", "PET_NNODES") is true.
bool claimCovers(std::string_view claim, std::string_view kindPrefix, std::string_view name);

// Is `claim` held by one plugin only (every claim but featureGate: and envRefusal:)?
bool isExclusiveClaim(std::string_view claim);

// Can two plugins not both hold `a` and `b`: the same exclusive claim, or name claims of one
// kind whose patterns share a name ("env:PET_*" and "env:PET_NNODES", "env:A*" and "env:AB*").
bool claimsConflict(std::string_view a, std::string_view b);

// The exclusive claims held so far, indexed so that finding a new claim's conflict costs a few
// map lookups instead of a comparison with every held claim (start-up checks each plugin's
// claims against all earlier plugins', issue 14's P3). find() agrees with claimsConflict.
class ClaimIndex {
public:
    // Not copyable: what it holds points into its own maps (moving them keeps their nodes).
    ClaimIndex() = default;
    ClaimIndex(const ClaimIndex&) = delete;
    ClaimIndex& operator=(const ClaimIndex&) = delete;
    ClaimIndex(ClaimIndex&&) = default;
    ClaimIndex& operator=(ClaimIndex&&) = default;
    struct Held {
        std::string_view claim;  // the index's own copy (its key in exact_)
        const void* owner;  // whatever add() was given (the registry's LoadedPlugin)
    };
    // A held claim that conflicts with `claim`, or nullptr.
    const Held* find(std::string_view claim) const;
    // Records `claim` as held by `owner` (descriptive claims are not recorded: they never conflict).
    void add(std::string_view claim, const void* owner);

private:
    struct Name {  // the held claims of one literal part (one plugin may hold both "env:A" and "env:A*")
        const Held* literal = nullptr;  // "A"
        const Held* pattern = nullptr;  // "A*"
    };
    struct Kind {  // the name claims of one kind ("env:")
        std::map<std::string, Name, std::less<>> names;  // literal part -> its claims
        std::set<size_t> patternLengths;                 // of the literal parts of held patterns
    };
    std::unordered_map<std::string, Held, StringHash, std::equal_to<>> exact_;  // every exclusive claim
    std::map<std::string, Kind, std::less<>> kinds_;
};

}  // namespace trainer::core
