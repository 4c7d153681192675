// Kubernetes $(VAR) expansion, as k8s.io/kubernetes third_party/forked/golang/expansion/expand.go
// applies it to env values, command, args and subPathExpr.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace trainer::core::executor {

// Looks a variable up: its value, or nullopt when it is not defined.
using VarLookup = std::function<std::optional<std::string>(std::string_view)>;

// Expands `in`: $(VAR) becomes VAR's value when `lookup` defines it and stays verbatim when not;
// $$ is an escaped $ (so $$(VAR) is the literal "$(VAR)"); a $ before anything else, a trailing
// $ and an unterminated $( are kept. The name runs to the first ')', so references do not nest
// and values are not expanded again.
std::string expandVars(std::string_view in, const VarLookup& lookup);

}  // namespace trainer::core::executor
