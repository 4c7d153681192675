#!/usr/bin/env bash
# The README's main command: builds the operator and its plugins, starts `run` on a temporary
# embedded store with the build tree's plugins, applies the shipped examples, waits until every
# TrainJob is reconciled, shows what the operator built, and stops it with SIGTERM.
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

echo "== run (store $store, log $work/operator.log)" >&2
"$bin" run --plugin-dir "$plugins" --store "$store" \
  --health-probe-bind-address 127.0.0.1:0 --metrics-bind-address 127.0.0.1:0 >"$work/operator.log" 2>&1 &
pid=$!

health_port=""
for _ in $(seq 1 100); do
  health_port=$(sed -n 's/.*"server":"health".*"port":\([0-9]*\).*/\1/p' "$work/operator.log" | head -n1)
  [ -n "$health_port" ] && [ "$(curl -s "http://127.0.0.1:$health_port/readyz" || true)" = "ok" ] && break
  sleep 0.1
done
echo "== /readyz: $(curl -s "http://127.0.0.1:$health_port/readyz")" >&2

echo "== apply -f examples/" >&2
"$bin" apply -f examples/ --store "$store" --plugin-dir "$plugins"

count() { "$bin" get "$1" -A -o json --store "$store" | grep -c '"kind": "'"$2"'"' || true; }
want=$(count trainjobs TrainJob)
for _ in $(seq 1 100); do
  [ "$(count jobsets JobSet)" -ge "$want" ] && break
  sleep 0.1
done

for args in "trainjobs" "jobsets" "podgroups -A" "configmaps" "secrets" "events"; do
  echo "== get $args" >&2
  # shellcheck disable=SC2086
  "$bin" get $args --store "$store"
done

echo "== stop (SIGTERM)" >&2
kill -TERM "$pid"
wait "$pid"
echo "operator exited with $?" >&2
pid=""
