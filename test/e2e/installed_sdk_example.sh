#!/usr/bin/env bash
# Installs the project to a temporary prefix, then builds, tests and loads the out-of-tree
# paddle plugin using nothing but that prefix (find_package(TrainerSDK)), its unit tests linking
# TrainerSDK::testing (the operator's real host) from that prefix, and runs golden cases on it
# with the installed `trainer-operator test-plugins`; then, in the same prefix, the README's
# "Write your first plugin" blocks verbatim (readme_hello.sh).
set -euo pipefail
build=$1 src=$2 type=${3:-RelWithDebInfo} sanitize=${4:-OFF}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/trainer-operator"
test -f "$prefix/include/trainer/abi.h"
test -f "$prefix/lib/cmake/TrainerSDK/TrainerSDKConfig.cmake"
test -f "$prefix/include/trainer/testing/real_host.hpp"
ls "$prefix"/lib/libtrainer-sdk-testing.so.* >/dev/null
ls "$prefix/lib/trainer-operator/plugins/"*.so >/dev/null

flags=""
[ "$sanitize" = "ON" ] && flags="-fsanitize=address,undefined"
cmake -S "$src/sdk/examples/paddle" -B "$tmp/paddle" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE="$type" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_MODULE_LINKER_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$tmp/paddle" -j2 >/dev/null
ctest --test-dir "$tmp/paddle" --output-on-failure
# paddle's unit tests ran on the real host: TrainerSDK::testing from the installed prefix.
dynamic=$(readelf -d "$tmp/paddle/paddle_test")
grep -q 'NEEDED.*libtrainer-sdk-testing\.so' <<<"$dynamic"
runpath=$(grep -E 'R(UN)?PATH' <<<"$dynamic") || { echo "paddle_test has no RUNPATH: $dynamic" >&2; exit 1; }
grep -qF "$prefix/lib" <<<"$runpath" || { echo "paddle_test's RUNPATH lacks $prefix/lib: $runpath" >&2; exit 1; }
cases=$("$tmp/paddle/paddle_test" --list_content 2>&1)
grep -q resulting_info_on_the_real_host <<<"$cases"

# Golden cases as a plugin author runs them: the installed binary, its shipped plugins, and the
# plugin under test from its own build directory (sdk/docs/golden-tests.md).
"$prefix/bin/trainer-operator" test-plugins --plugin-dir "$tmp/paddle/plugins" "$src/test/e2e/fixtures/golden_paddle" \
  | tee "$tmp/golden.out"
test "$(tail -n 1 "$tmp/golden.out")" = "2 passed, 0 failed"

cp "$tmp/paddle/plugins/paddle.so" "$prefix/lib/trainer-operator/plugins/"

# The installed binary finds its plugin dir relative to itself.
out=$("$prefix/bin/trainer-operator" plugins -o json)
echo "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = {x["name"]: x for x in d["plugins"]}
assert "paddle" in p, "paddle not loaded: %s" % d
assert "mlPolicy.paddle" in p["paddle"]["claims"], p["paddle"]
assert p["paddle"]["extensionPoints"] == ["CustomValidation", "EnforceMLPolicy"], p["paddle"]
assert not d["rejected"], d["rejected"]
print("loaded:", sorted(p))
'
"$prefix/bin/trainer-operator" render -f "$src/sdk/examples/paddle/paddle.yaml" -o json | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
js = [o for o in items if o["kind"] == "JobSet"][0]
node = [r for r in js["spec"]["replicatedJobs"] if r["name"] == "node"][0]
assert node["template"]["spec"]["parallelism"] == 2, node["template"]["spec"]
env = {e["name"]: e for e in node["template"]["spec"]["template"]["spec"]["containers"][0]["env"]}
assert env["PADDLE_MASTER"]["value"] == "paddle-example-node-0-0.paddle-example:36789", env
assert env["PADDLE_NNODES"]["value"] == "2", env
print("rendered paddle env:", sorted(env))
'
# The host refuses a TrainJob setting a claimed env var, worded by paddle's envRefusal: claim.
bad=$tmp/paddle-reserved.yaml
sed 's/    numNodes: 2/    numNodes: 2\n    env: [{name: PADDLE_MASTER, value: x}]/' "$src/sdk/examples/paddle/paddle.yaml" >"$bad"
grep -q 'name: PADDLE_MASTER' "$bad"
if err=$("$prefix/bin/trainer-operator" validate -f "$bad" 2>&1); then
  echo "a TrainJob setting PADDLE_MASTER was admitted" >&2; exit 1
fi
grep -qF 'spec.trainer.env[0]: PADDLE_MASTER is reserved for the PaddlePaddle runtime' <<<"$err" ||
  { echo "unexpected refusal: $err" >&2; exit 1; }

bash "$src/test/e2e/readme_hello.sh" "$prefix" "$src/README.md" "$tmp/hello" "$flags"
echo "installed SDK example: ok"
