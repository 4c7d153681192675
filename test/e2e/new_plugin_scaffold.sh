#!/usr/bin/env bash
# `trainer-operator new-plugin` end to end, as a plugin author uses it: install the project to a
# temporary prefix, generate a project of each kind with the installed binary, run its ci.sh
# against the prefix (configure, build, unit tests on the fake and the real host, golden cases
# beside the shipped plugins), load the module, render the generated example.
set -euo pipefail
build=$1 src=$2 type=${3:-RelWithDebInfo} sanitize=${4:-OFF}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
op=$prefix/bin/trainer-operator
test -x "$op"
grep -q 'TrainerSDK_OPERATOR_EXECUTABLE' "$prefix/lib/cmake/TrainerSDK/TrainerSDKConfig.cmake"

flags=""
[ "$sanitize" = "ON" ] && flags="-fsanitize=address,undefined"

# generate <name> <kind> <golden cases>: the project, built and tested by its own ci.sh.
generate() {
  local name=$1 kind=$2 cases=$3
  "$op" new-plugin "$name" --kind "$kind" --dir "$tmp/$name" | tee "$tmp/$name.new"
  for f in CMakeLists.txt README.md ci.sh entry.cpp "$name.hpp" "$name.cpp" "test/${name}_test.cpp" "$name.yaml"; do
    grep -qF "$tmp/$name/$f" "$tmp/$name.new" || { echo "new-plugin did not list $f" >&2; exit 1; }
  done
  grep -q 'ci.sh P' "$tmp/$name.new"
  BUILD_DIR="$tmp/$name-build" "$tmp/$name/ci.sh" "$prefix" -DCMAKE_BUILD_TYPE="$type" \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_MODULE_LINKER_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
    2>&1 | tee "$tmp/$name.ci"
  # ctest ran the unit tests and the golden cases; ci.sh then printed the cases.
  grep -q '100% tests passed, 0 tests failed out of 2' "$tmp/$name.ci"
  grep -qE "Test +#[0-9]+: ${name}_test \.+ +Passed" "$tmp/$name.ci"
  grep -qE "Test +#[0-9]+: ${name}_golden \.+ +Passed" "$tmp/$name.ci"
  test "$(tail -n 1 "$tmp/$name.ci")" = "$cases passed, 0 failed"
  # The unit tests ran on the real host too (TrainerSDK::testing from the prefix).
  # (Captured first: `grep -q` ending a pipe early would fail it under pipefail.)
  local listed dynamic
  listed=$("$tmp/$name-build/${name}_test" --list_content 2>&1)
  grep -q the_resulting_info_on_the_real_host <<<"$listed"
  dynamic=$(readelf -d "$tmp/$name-build/${name}_test")
  grep -q 'NEEDED.*libtrainer-sdk-testing\.so' <<<"$dynamic"
}

# loaded <name> <claim> <extension points as JSON>: the module loads on its own.
loaded() {
  "$op" plugins --plugin-dir "$tmp/$1-build/plugins" -o json | python3 -c '
import json, sys
name, claim, eps = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
d = json.load(sys.stdin)
p = {x["name"]: x for x in d["plugins"]}
assert name in p, "%s not loaded: %s" % (name, d)
assert claim in p[name]["claims"], p[name]
assert p[name]["extensionPoints"] == eps, p[name]
assert not d["rejected"], d["rejected"]
print("loaded:", name, p[name]["claims"])
' "$1" "$2" "$3"
}

generate my-policy ml-policy 3
loaded my-policy mlPolicy.my-policy '["CustomValidation", "EnforceMLPolicy"]'
generate acme-gang pod-group 2
loaded acme-gang podGroupPolicy.acme-gang '["CustomValidation", "EnforcePodGroupPolicy"]'

# Installed beside the shipped plugins (the generated project's install rule), the examples render.
cmake --install "$tmp/my-policy-build" --prefix "$prefix" >/dev/null
cmake --install "$tmp/acme-gang-build" --prefix "$prefix" >/dev/null
test -f "$prefix/lib/trainer-operator/plugins/my-policy.so"
test -f "$prefix/lib/trainer-operator/plugins/acme-gang.so"
"$op" plugins -o json | python3 -c '
import json, sys
d = json.load(sys.stdin)
names = {x["name"] for x in d["plugins"]}
assert {"my-policy", "acme-gang", "torch", "coscheduling"} <= names, names
assert not d["rejected"], d["rejected"]
'

"$op" render -f "$tmp/my-policy/my-policy.yaml" -o json | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
js = [o for o in items if o["kind"] == "JobSet"][0]
node = [r for r in js["spec"]["replicatedJobs"] if r["name"] == "node"][0]
assert node["template"]["spec"]["parallelism"] == 2, node["template"]["spec"]
env = {e["name"]: e for e in node["template"]["spec"]["template"]["spec"]["containers"][0]["env"]}
assert env["MY_POLICY_NUM_NODES"]["value"] == "2", env
assert env["MY_POLICY_MASTER_ADDR"]["value"] == "my-policy-example-node-0-0.my-policy-example", env
assert env["MY_POLICY_MASTER_PORT"]["value"] == "29500", env
assert "valueFrom" in env["MY_POLICY_NODE_RANK"], env
print("rendered my-policy env:", sorted(env))
'
"$op" render -f "$tmp/acme-gang/acme-gang.yaml" -o json | python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
js = [o for o in items if o["kind"] == "JobSet"][0]
node = [r for r in js["spec"]["replicatedJobs"] if r["name"] == "node"][0]
md = node["template"]["spec"]["template"]["metadata"]
assert md["labels"]["acme-gang.example.com/pod-group"] == "acme-gang-example", md
assert md["annotations"]["acme-gang.example.com/min-member"] == "2", md
assert md["annotations"]["acme-gang.example.com/schedule-timeout-seconds"] == "120", md
print("rendered acme-gang pod metadata:", md)
'

# The validation the template ships: a runtime port out of range is refused with its path.
sed 's/port: 29500/port: 70000/' "$tmp/my-policy/my-policy.yaml" >"$tmp/bad-port.yaml"
if err=$("$op" validate -f "$tmp/bad-port.yaml" 2>&1); then
  echo "a runtime with port 70000 was admitted" >&2; exit 1
fi
grep -qF 'spec.mlPolicy.my-policy.port: Invalid value: 70000: must be between 1 and 65535' <<<"$err" ||
  { echo "unexpected refusal: $err" >&2; exit 1; }

# The usage errors, with the installed binary and its shipped plugins.
bash "$src/test/e2e/new_plugin_usage.sh" "$op" "$prefix/lib/trainer-operator/plugins"
echo "new-plugin scaffold: ok"
