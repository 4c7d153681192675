// The kinds of plugin `new-plugin --kind` writes: a name and a table of files each.
#include "core/cli/scaffold.hpp"

#include <array>

namespace trainer::core::cli::scaffold {

namespace {
constexpr std::array<std::string_view, 2> kMlPolicyClaims{"mlPolicy.@NAME@", "env:@ENV_PREFIX@_*"};
constexpr std::array<std::string_view, 1> kPodGroupClaims{"podGroupPolicy.@NAME@"};
}  // namespace

std::span<const Kind> kinds() {
    static const std::array<Kind, 2> table{{
        {"ml-policy", "an ML policy (mlPolicy.<name>): env vars for the trainer's nodes", templateFiles("ml-policy"),
         kMlPolicyClaims},
        {"pod-group", "a pod-group policy (podGroupPolicy.<name>): gang-scheduling labels on every pod",
         templateFiles("pod-group"), kPodGroupClaims},
    }};
    return table;
}

const Kind* findKind(std::string_view name) {
    for (auto const& k : kinds())
        if (k.name == name) return &k;
    return nullptr;
}

}  // namespace trainer::core::cli::scaffold
