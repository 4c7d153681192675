// Upstream's Flux script templates, embedded byte for byte (generated from templates/ by
// CMakeLists.txt): https://github.com/kubeflow/trainer/blob/master/pkg/runtime/framework/plugins/flux/templates
// Each holds `%s` verbs that scripts.cpp fills in as Go's fmt.Sprintf does.
#pragma once

#include <string_view>

namespace trainer::plugins::flux {

// templates/broker.toml: bind, connect, hosts, queue policy.
std::string_view brokerTemplate();
// templates/entrypoint.sh: R spec, main host, flux run flags.
std::string_view entrypointTemplate();
// templates/init.sh: flux root, main host, hosts, broker.toml contents.
std::string_view initTemplate();

}  // namespace trainer::plugins::flux
