// The operator's feature gates: upstream's table (pkg/features/features.go,
// https://github.com/kubeflow/trainer/blob/master/pkg/features/features.go) with each gate's
// default and maturity, and the Configuration's `featureGates` overrides resolved against it.
// Plugins learn the effective gates through the Info document's `operator.featureGates`.
#pragma once

#include "core/api/errors.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace trainer::core::controller {

struct FeatureGate {
    std::string_view name;
    bool enabledByDefault;
    std::string_view stage;  // "Alpha", "Beta", "GA"
};

// Every gate this operator knows, in name order.
const std::vector<FeatureGate>& knownFeatureGates();

// The default value of every known gate.
std::map<std::string, bool> defaultFeatureGates();

// Applies `overrides` to the defaults. An unknown gate is an error at `featureGates[<name>]`
// (component-base's "unrecognized feature gate") and changes nothing.
std::map<std::string, bool> resolveFeatureGates(const std::map<std::string, bool>& overrides, Diagnostics& diag);

// Sets each of `overrides` in `gates` (the effective values); an unknown gate is an error at
// `<path>[<name>]` and changes nothing.
void overrideFeatureGates(std::map<std::string, bool>& gates, const std::map<std::string, bool>& overrides,
                          Diagnostics& diag, std::string_view path);

// Parses the `--feature-gates` flag ("A=true,B=false", component-base's format) into overrides;
// malformed pairs are errors at `--feature-gates`.
std::map<std::string, bool> parseFeatureGatesFlag(std::string_view text, Diagnostics& diag);

}  // namespace trainer::core::controller
