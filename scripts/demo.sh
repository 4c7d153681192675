#!/usr/bin/env bash
# The README's main command: builds the operator and its plugins, starts `run` on a temporary
# embedded store with the build tree's plugins and its Kubernetes API, applies the shipped
# examples with kubectl, waits until every TrainJob is reconciled, shows what the operator built
# (kubectl get), and stops it with SIGTERM.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh >&2
BUILD_DIR=${BUILD_DIR:-build}
bin="$BUILD_DIR/bin/trainer-operator"
plugins="$BUILD_DIR/lib/trainer-operator/plugins"
work=$(mktemp -d)
store="$work/trainer-operator.db"
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; wait "$pid" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

echo "== plugins" >&2
"$bin" plugins --plugin-dir "$plugins"

kubeconfig="$work/kubeconfig"
kc() { kubectl --kubeconfig "$kubeconfig" --cache-dir "$work/kube-cache" --request-timeout=30s "$@"; }

echo "== run (store $store, log $work/operator.log)" >&2
"$bin" run --plugin-dir "$plugins" --store "$store" \
  --health-probe-bind-address 127.0.0.1:0 --metrics-bind-address 127.0.0.1:0 \
  --api-bind-address 127.0.0.1:0 --write-kubeconfig "$kubeconfig" >"$work/operator.log" 2>&1 &
pid=$!

for _ in $(seq 1 300); do
  [ -s "$kubeconfig" ] && kc get --raw /readyz >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/operator.log" >&2; exit 1; }
  sleep 0.1
done
echo "== the Kubernetes API: $(grep -o '"msg":"Serving the Kubernetes API"[^}]*' "$work/operator.log")" >&2

echo "== kubectl apply --server-side -f examples/" >&2
kc apply --server-side -f examples/

want=$(kc get trainjobs -A -o name | wc -l)
for _ in $(seq 1 300); do
  [ "$(kc get jobsets.jobset.x-k8s.io -A -o name | wc -l)" -ge "$want" ] && break
  sleep 0.1
done

for args in "trainjobs" "jobsets.jobset.x-k8s.io" "podgroups.scheduling.x-k8s.io -A" \
            "podgroups.scheduling.volcano.sh -A" "configmaps" "secrets" "events"; do
  echo "== kubectl get $args" >&2
  # shellcheck disable=SC2086
  kc get $args
done

echo "== stop (SIGTERM)" >&2
kill -TERM "$pid"
wait "$pid"
echo "operator exited with $?" >&2
pid=""
