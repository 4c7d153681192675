// Plugin log lines (ABI rule 14) into the operator's structured log, with "plugin": <name>.
#pragma once

#include "core/log/log.hpp"
#include "core/plugin/registry.hpp"

namespace trainer::core {

// A sink writing each plugin line through `logger` at the matching level.
PluginLogSink loggerSink(log::Logger logger);

}  // namespace trainer::core
