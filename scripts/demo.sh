#!/usr/bin/env bash
# The README's main command: builds the operator and its plugins, then runs the pipeline on
# the shipped examples and prints what the operator would create.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
BUILD_DIR=${BUILD_DIR:-build}
bin="$BUILD_DIR/bin/trainer-operator"
echo "== plugins" >&2
"$bin" plugins
echo "== render examples/" >&2
"$bin" render -f examples/ -o yaml
