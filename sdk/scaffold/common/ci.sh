#!/usr/bin/env bash
# Configure, build and test the plugin against an installed trainer-operator:
#   ./ci.sh <prefix> [cmake configure args...]      (or TRAINER_PREFIX=<prefix> ./ci.sh)
# BUILD_DIR (default ./build) is the build directory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:-${TRAINER_PREFIX:-}}
if [ -z "$prefix" ]; then
  echo "usage: $0 <trainer-operator prefix> [cmake args...]" >&2
  exit 2
fi
[ $# -gt 0 ] && shift
build=${BUILD_DIR:-$here/build}

cmake -S "$here" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" "$@"
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)"
# Unit tests (@NAME@_test) and golden cases (@NAME@_golden).
ctest --test-dir "$build" --output-on-failure
# The golden cases once more, each printed: the installed binary, its shipped plugins, this module.
"$prefix/bin/trainer-operator" test-plugins --plugin-dir "$build/plugins" "$here/cases"
