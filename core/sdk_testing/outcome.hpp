// The testing library's conversions from the host's results to the SDK's Outcome
// (sdk/include/trainer/testing/real_host.hpp).
#pragma once

#include "core/api/errors.hpp"

#include <trainer/testing/real_host.hpp>

namespace trainer::core::sdk_testing {

namespace testing = trainer::sdk::testing;

// Appends `d`'s warnings, then its errors, as the CLI prints them.
void addDiagnostics(testing::Outcome& out, const Diagnostics& d);

}  // namespace trainer::core::sdk_testing
