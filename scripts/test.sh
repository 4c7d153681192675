#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, runs every test (unit, ABI
# conformance, golden, end-to-end with the real .so files, the installed-SDK example and the
# golden cases run by `trainer-operator test-plugins`). Exit status is CTest's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
BUILD_DIR=${BUILD_DIR:-build}
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"${JOBS:-2}" --timeout 600
