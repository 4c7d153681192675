// Minimal Kubernetes resource.Quantity reading, private to this plugin: only what GPU
// detection needs (the integer a quantity rounds up to, like Go's Quantity.Value()).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace trainer::plugins::mpi {

// ceil(value) of a quantity string ("2", "500m", "1Ki", "1e3"); nullopt when malformed.
// Saturates at INT64_MAX / INT64_MIN instead of overflowing.
std::optional<int64_t> quantityCeil(std::string_view quantity);

}  // namespace trainer::plugins::mpi
