#!/usr/bin/env bash
# core/ never names a plugin (in code, strings or includes; README.md "Layout"). Whole lowercase words,
# so the JobSet *API type* the runtime CRD embeds (JobSetSpec) is not a match. The JobSet API's
# own names are Kubernetes data the local executor executes (core/executor), not the plugin:
# the group `jobset.x-k8s.io` and the label/annotation domain `jobset.sigs.k8s.io/<key>` are
# removed before the check. Prints the offending lines and fails when any plugin is named.
set -euo pipefail
root=${1:?usage: no_plugin_names.sh CORE_DIR}
words='torch|mpi|jobset|plainml|coscheduling|volcano|jax|xgboost|flux|paddle'
hits=$(grep -rnE "" "$root" | sed -E 's#jobset\.(x-k8s|sigs\.k8s)\.io(/[A-Za-z0-9_.-]+)?##g' | grep -wE "$words" || true)
if [ -n "$hits" ]; then
  echo "core/ names a plugin:" >&2
  echo "$hits" >&2
  exit 1
fi
echo "core/ names no plugin"
