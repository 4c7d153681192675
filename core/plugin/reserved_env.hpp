// The host's refusal of a TrainJob that sets an env var an active plugin claims (`env:NAME`,
// `env:PREFIX*`; claims.hpp), done at admission for every plugin alike, so no plugin carries
// its own copy of the check (sdk/docs/info.md "What the host refuses"). As upstream's ML policy
// plugins validate them (https://github.com/kubeflow/trainer, pkg/runtime/framework/plugins),
// only `spec.trainer.env` is checked, worded one of two ways:
//   - by default one error for the plugin at `spec.trainer.env`, the names sorted and each once:
//     `must not have reserved envs, invalid envs configured: [A B]` (Invalid);
//   - with an `envRefusal:<message>` claim, one error per entry at `spec.trainer.env[i]`, the
//     message with `{name}` replaced by the entry's name (Forbidden).
#pragma once

#include "core/api/errors.hpp"
#include "core/plugin/registry.hpp"

#include <boost/json.hpp>

namespace trainer::core {

namespace json = boost::json;

// The errors for `plugin`'s env claims in `trainJob` (none when it claims no env name, or the
// TrainJob sets none of them). Says nothing about whether the plugin is active: the caller asks.
Diagnostics refuseClaimedEnv(const LoadedPlugin& plugin, const json::object& trainJob);

}  // namespace trainer::core
