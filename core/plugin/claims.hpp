// Name claims (ABI rule 12, sdk/docs/abi.md): `env:NAME` and `volume:NAME` make a name one
// plugin's; `env:PREFIX*` (a non-empty prefix, then `*`) claims every name starting with the
// prefix. Which claims are ownership at all: `featureGate:<Name>` and `envRefusal:<message>`
// only describe the plugin, so two plugins may both hold them.
#pragma once

#include <string>
#include <string_view>

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

}  // namespace trainer::core
