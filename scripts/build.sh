#!/usr/bin/env bash
# Configures and builds everything (operator, plugins, tests, benchmarks) into $BUILD_DIR.
# TRAINER_SANITIZE=ON builds with address and undefined-behaviour sanitizers; BUILD_TARGETS="a b"
# builds only those targets (scripts/demo.sh: the operator and its plugins). core/ is compiled as
# a unity build (TRAINER_UNITY_BUILD=OFF: file by file; CMakeLists.txt says why).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" \
  -DTRAINER_SANITIZE="${TRAINER_SANITIZE:-OFF}" -DTRAINER_UNITY_BUILD="${TRAINER_UNITY_BUILD:-ON}" >/dev/null
targets=()
for t in ${BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$BUILD_DIR" -j"${JOBS:-2}" "${targets[@]}"
