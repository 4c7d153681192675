// A plugin's descriptor as the plugin-host child reports it (the Described frame): what the
// loader read from the trn_plugin_descriptor (registry_descriptor.cpp), as JSON. The child is
// not trusted: the operator re-checks every member and refuses anything malformed.
#pragma once

#include "core/plugin/registry.hpp"
#include "core/plugin/registry_internal.hpp"

#include <boost/json.hpp>

#include <optional>
#include <string>

namespace trainer::core::isolation {

// {"name","version","description","abi","priority","threadSafe","claims":[...],
//  "hooks":["EnforceMLPolicy",...],"watches":[{"apiVersion","kind","mode","matchField"}],
//  "lifecycle":bool} of a plugin read in the child (`lifecycle`: create and destroy are set).
std::string describe(const LoadedPlugin& p, bool lifecycle);

// Fills `p` (hooks map to null functions: they run in the child) and `lifecycle` from a
// Described frame; a Refusal ("protocol_violation") when it is malformed.
std::optional<detail::Refusal> undescribe(std::string_view text, LoadedPlugin& p, bool& lifecycle);

}  // namespace trainer::core::isolation
