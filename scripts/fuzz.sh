#!/usr/bin/env bash
# Builds the libFuzzer targets of test/fuzz (clang, ASan + UBSan, in $FUZZ_BUILD_DIR, default
# build-fuzz, nothing but those targets) and runs each for SECONDS seconds. Prints per target
# the executions, the CPU seconds and any crash, leak, timeout or out-of-memory input; exits 1
# when a target found one (the input is kept under $FUZZ_BUILD_DIR/artifacts/).
#   FUZZ_TARGETS="input edits"  a subset          FUZZ_JOBS=2      targets run at once
#   FUZZ_NICE=10                niceness of runs   FUZZ_LOCK=FILE   flock FILE around the build
# The working corpus ($FUZZ_BUILD_DIR/corpus/<target>) grows across runs; it starts from the
# committed test/fuzz/corpus/<target> and seeds test/fuzz/seeds.py generates from examples/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz.sh SECONDS}
bash scripts/setup.sh
dir=${FUZZ_BUILD_DIR:-build-fuzz}
targets=(${FUZZ_TARGETS:-input admission edits apiserver_request apiserver_patch apiserver_protobuf})
jobs=${FUZZ_JOBS:-1}

start=$(date +%s)
cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER=clang++-16 -DCMAKE_C_COMPILER=clang-16 -DCMAKE_BUILD_TYPE=Fuzz \
  -DCMAKE_CXX_FLAGS_FUZZ="-O1 -gline-tables-only" -DCMAKE_C_FLAGS_FUZZ="-O1" \
  -DTRAINER_FUZZ=ON -DTRAINER_TEST_FILTER='^fuzz$' -DTRAINER_PLUGIN_FILTER='^$' >/dev/null
build=()
for t in "${targets[@]}"; do build+=(--target "${t}_fuzz"); done
${FUZZ_LOCK:+flock "$FUZZ_LOCK"} cmake --build "$dir" -j"${JOBS:-2}" "${build[@]}"
echo "fuzz: build took $(( $(date +%s) - start )) s"

rm -rf "$dir/seeds"
/usr/bin/python3 test/fuzz/seeds.py "$dir/seeds" >/dev/null
symbolizer=$(command -v llvm-symbolizer-16 || command -v llvm-symbolizer || true)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH=$symbolizer

# One target: -max_total_time SECONDS, -rss_limit_mb 2048, a 25 s limit per input; its log and
# CPU time (bash's `time`: user and system seconds) go to $dir/runs/<target>.{log,cpu}.
run() {
  local t=$1 corpus=$dir/corpus/$1 dict=test/fuzz/dict/$1.dict
  mkdir -p "$corpus" "$dir/artifacts" "$dir/runs"
  local extra=()
  [ -f "$dict" ] && extra+=(-dict="$dict")
  local TIMEFORMAT='%U %S'
  { time nice -n "${FUZZ_NICE:-10}" "$dir/bin/${t}_fuzz" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=25 \
      -print_final_stats=1 -artifact_prefix="$dir/artifacts/$t-" "${extra[@]}" \
      "$corpus" "test/fuzz/corpus/$t" "$dir/seeds/$t" >"$dir/runs/$t.log" 2>&1; echo $? >"$dir/runs/$t.rc"; } 2>"$dir/runs/$t.cpu"
}

rm -f "$dir"/runs/*.rc
if compgen -G "$dir/artifacts/*-*" >/dev/null; then  # an earlier run's findings, kept apart
  mkdir -p "$dir/artifacts/previous" && find "$dir/artifacts" -maxdepth 1 -type f -exec mv -t "$dir/artifacts/previous" {} +
fi
running=0
for t in "${targets[@]}"; do
  run "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait

status=0
printf '%-20s %12s %8s %8s  %s\n' target executions cpu_s corpus finding
for t in "${targets[@]}"; do
  log=$dir/runs/$t.log
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cpu=$(awk '{printf "%.0f", $1 + $2}' "$dir/runs/$t.cpu")
  units=$(find "$dir/corpus/$t" -type f | wc -l)
  found=$(ls "$dir/artifacts/$t-"{crash,leak,timeout,oom}-* 2>/dev/null | tr '\n' ' ' || true)
  rc=$(cat "$dir/runs/$t.rc" 2>/dev/null || echo 1)
  if [ "$rc" != 0 ] || [ -n "$found" ]; then
    status=1
    found="${found:-exit status $rc} (log: $log)"
  fi
  printf '%-20s %12s %8s %8s  %s\n' "$t" "${execs:-?}" "$cpu" "$units" "${found:-none}"
done
for t in "${targets[@]}"; do
  if grep -q -E '^==[0-9]+==ERROR|^SUMMARY|fuzz finding' "$dir/runs/$t.log"; then
    echo "---- $t:"; excerpt=$(grep -a -E -A12 'fuzz finding|==ERROR|runtime error' "$dir/runs/$t.log" || true); head -40 <<<"$excerpt"
  fi
done
exit $status
