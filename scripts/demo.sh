#!/usr/bin/env bash
# The README's main command: builds the operator and its plugins (not the tests), starts `run` on a
# temporary embedded store with its Kubernetes API and its local executor, applies the local
# training examples (examples/local/) with kubectl, waits until every TrainJob has finished, shows
# the TrainJobs, their pods and the training logs, and stops the operator with SIGTERM.
# The TrainJobStatus feature gate is on, so torch-progress reports its progress to the operator's
# status server (https on statusServer.port, 10443) into status.trainerStatus.
# Exits 1 unless the training runs end Complete (torch-progress with progressPercentage 100) and the
# failing example ends Failed.
# The local executor runs pods as processes in their own namespaces: it needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_TARGETS="trainer-operator trainer-plugins" bash scripts/build.sh >&2
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
"$bin" run --plugin-dir "$plugins" --store "$store" --feature-gates TrainJobStatus=true \
  --health-probe-bind-address 127.0.0.1:0 --metrics-bind-address 127.0.0.1:0 \
  --api-bind-address 127.0.0.1:0 --write-kubeconfig "$kubeconfig" >"$work/operator.log" 2>&1 &
pid=$!

for _ in $(seq 1 300); do
  [ -s "$kubeconfig" ] && kc get --raw /readyz >/dev/null 2>&1 && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/operator.log" >&2; exit 1; }
  sleep 0.1
done

echo "== kubectl apply --server-side -f examples/local/" >&2
kc apply --server-side -f examples/local/

echo "== training (every TrainJob runs as local processes; waiting until all have finished)" >&2
finished() {
  kc get trainjobs -o jsonpath='{range .items[*]}{.metadata.name}={range .status.conditions[?(@.status=="True")]}{.type},{end}{"\n"}{end}'
}
for _ in $(seq 1 600); do
  states=$(finished)
  # A here-string, not `echo | grep -q`: under pipefail, grep -q leaving at its first match makes
  # echo (which writes a line at a time) die of SIGPIPE, and the failed pipeline read as "finished".
  if ! grep -qvE '=.*(Complete|Failed)' <<<"$states"; then break; fi
  kill -0 "$pid" 2>/dev/null || { cat "$work/operator.log" >&2; exit 1; }
  sleep 1
done

echo "== kubectl get trainjobs" >&2
kc get trainjobs
echo "== kubectl get pods" >&2
kc get pods
echo "== trainer-operator logs trainjob/torch-ddp (last lines)" >&2
"$bin" logs trainjob/torch-ddp --store "$store" | grep -E 'world_size|done' || true
echo "== trainer-operator logs trainjob/mpi-hello" >&2
"$bin" logs trainjob/mpi-hello --store "$store" | grep -E '<stdout>' || true
echo "== trainer-operator logs trainjob/torch-progress (its progress reports)" >&2
"$bin" logs trainjob/torch-progress --store "$store" | grep -E 'reported progress|done' || true
echo "== kubectl get trainjob torch-progress -o jsonpath='{.status.trainerStatus}'" >&2
progress=$(kc get trainjob torch-progress -o jsonpath='{.status.trainerStatus.progressPercentage}' || true)
kc get trainjob torch-progress -o jsonpath='{.status.trainerStatus}' || true; echo
echo "== why failing-example failed" >&2
kc get trainjob failing-example -o jsonpath='{range .status.conditions[*]}{.type}: {.reason}: {.message}{"\n"}{end}'

want="failing-example=Failed torch-ddp=Complete multi-node-example=Complete mpi-hello=Complete torch-progress=Complete"
status=0
final=$(finished) || echo "demo: kubectl get trainjobs failed" >&2  # one read for every check, shown when one fails
for w in $want; do
  name=${w%%=*} cond=${w#*=}
  grep -qE "^$name=.*$cond" <<<"$final" || { echo "demo: $name did not end $cond" >&2; status=1; }
done
[ "$status" = 0 ] || { echo "demo: the TrainJobs' true conditions were:" >&2; echo "$final" >&2; }
[ "$progress" = 100 ] || { echo "demo: torch-progress reported progress \"$progress\", not 100" >&2; status=1; }

echo "== stop (SIGTERM)" >&2
kill -TERM "$pid"
wait "$pid"
echo "operator exited with $?" >&2
pid=""
exit $status
