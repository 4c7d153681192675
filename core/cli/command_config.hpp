// The Configuration a command acts on: `--config FILE` (upstream's Configuration plus our
// `plugins` section), then `--feature-gates A=true,B=false` on top of the file's gates (upstream's
// flag: the command line wins). Shared by run, render and validate, so what a Configuration
// changes in the built objects can be seen without a cluster.
#pragma once

#include "core/cli/cli.hpp"
#include "core/controller/configuration.hpp"
#include "core/plugin/operator_settings.hpp"

#include <string>

namespace trainer::core::cli {

// The two flags, for a command's flag table.
FlagSpec configFlag();
FlagSpec featureGatesFlag();

// Loads --config (when given) and applies --feature-gates. On errors prints each as
// "error: invalid configuration: <path>: <message>" to io.err and returns false.
bool loadCommandConfiguration(const Args& args, Io& io, controller::Configuration& cfg);

// What plugins learn of the operator (Info `operator`): its namespace, Service, webhook Secret,
// status server port and the effective feature gates.
OperatorSettings operatorSettingsOf(const controller::Configuration& cfg, const std::string& operatorNamespace);

// --plugin-dir when given, else the Configuration's plugins.directory, else the default.
std::string pluginDirOf(const Args& args, const controller::Configuration& cfg);

}  // namespace trainer::core::cli
