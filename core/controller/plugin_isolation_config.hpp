// The Configuration's plugin isolation settings (core/plugin/isolation_options.hpp):
//   plugins:
//     isolation: process | inProcess     # every plugin; unset: inProcess for shipped files only
//     callTimeout: 30s                   # one hook call in a plugin-host child
//     memoryLimit: 2Gi                   # the child's resident memory (a quantity or bytes)
//     outputLimit: 64Mi                  # what one call may send back
//     perPlugin:
//       <plugin name>: {isolation, callTimeout, memoryLimit, outputLimit}
#pragma once

#include "core/api/errors.hpp"
#include "core/plugin/isolation_options.hpp"

#include <boost/json.hpp>

namespace trainer::core::controller {

// Reads the settings from the Configuration's `plugins` object (already type-checked member by
// member against the field table) into `out`; errors name the field path.
Diagnostics parsePluginIsolation(const boost::json::object& plugins, IsolationOptions& out);

}  // namespace trainer::core::controller
