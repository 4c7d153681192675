#!/usr/bin/env bash
# The README's "Write your first plugin", as a reader runs it: its C++, CMake and shell blocks
# taken verbatim (P in the shell block is the install prefix), built against an installed
# prefix, then a TrainJob rendered with the installed binary: HELLO_NODES must be the node
# count in force (the TrainJob's numNodes, else the runtime's). Also: listing the ENTRY file in
# SOURCES too is refused at configure time with a sentence, not a duplicate-symbol link error.
# Usage: readme_hello.sh PREFIX README WORKDIR [SANITIZER_FLAGS]
set -euo pipefail
prefix=$1 readme=$2 work=$3 flags=${4:-}
mkdir -p "$work"

python3 - "$readme" "$work" "$prefix" <<'PY'
import pathlib, re, sys
readme, work, prefix = pathlib.Path(sys.argv[1]).read_text(), pathlib.Path(sys.argv[2]), sys.argv[3]
section = readme.split("## Write your first plugin", 1)[1].split("\n## ", 1)[0]
blocks = {}
for lang, body in re.findall(r"```(\w+)\n(.*?)```", section, re.S):
    assert lang not in blocks, "two %s blocks in the README's first-plugin section" % lang
    blocks[lang] = body
assert set(blocks) == {"cpp", "cmake", "sh"}, sorted(blocks)
(work / "hello.cpp").write_text(blocks["cpp"])
(work / "CMakeLists.txt").write_text(blocks["cmake"])
# The reader replaces P by their prefix; only P standing alone is one.
(work / "steps.sh").write_text(re.sub(r"(?<![\w/.-])P(?=[/\s]|$)", prefix, blocks["sh"]))
PY

# The shell block, run as written (in the folder holding the two files); the sanitizer flags
# of an instrumented operator reach cmake through the environment, as a reader's would.
(cd "$work" && CXXFLAGS="$flags" LDFLAGS="$flags" bash -euo pipefail steps.sh) >"$work/steps.log" 2>&1 ||
  { cat "$work/steps.log" >&2; echo "the README's first-plugin steps failed" >&2; exit 1; }
"$prefix/bin/trainer-operator" plugins -o json | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = {x["name"]: x for x in d["plugins"]}
assert "hello" in p, "hello not loaded: %s" % d
assert p["hello"]["claims"] == ["mlPolicy.hello", "env:HELLO_*"], p["hello"]
assert p["hello"]["extensionPoints"] == ["EnforceMLPolicy"], p["hello"]
assert not d["rejected"], d["rejected"]
'

cat >"$work/jobs.yaml" <<'YAML'
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: hello-runtime}
spec:
  mlPolicy: {numNodes: 2, hello: {greeting: hi}}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
            spec: {template: {spec: {containers: [{name: node, image: busybox}]}}}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: three, namespace: default}
spec: {runtimeRef: {name: hello-runtime}, trainer: {numNodes: 3}}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: default-count, namespace: default}
spec: {runtimeRef: {name: hello-runtime}}
YAML
"$prefix/bin/trainer-operator" render -f "$work/jobs.yaml" -o json | python3 -c '
import json, sys
want = {"three": "3", "default-count": "2"}
seen = {}
for o in json.load(sys.stdin)["items"]:
    if o["kind"] != "JobSet":
        continue
    name = o["metadata"]["name"]
    node = [r for r in o["spec"]["replicatedJobs"] if r["name"] == "node"][0]["template"]["spec"]
    env = {e["name"]: e.get("value") for e in node["template"]["spec"]["containers"][0].get("env", [])}
    assert env.get("HELLO_NODES") == want[name], (name, env)
    assert node["parallelism"] == int(want[name]), (name, node)
    assert env.get("HELLO_HEAD") == "%s-node-0-0.%s" % (name, name), (name, env)
    assert env.get("HELLO_GREETING") == "hi", (name, env)
    seen[name] = env["HELLO_NODES"]
assert seen == want, seen
print("README hello plugin rendered:", seen)
'

# ENTRY listed in SOURCES as well: a clear configure error (configure only, nothing is compiled).
mkdir -p "$work/twice"
cp "$work/hello.cpp" "$work/twice/"
sed 's/trainer_add_plugin(hello ENTRY hello.cpp)/trainer_add_plugin(hello SOURCES hello.cpp ENTRY hello.cpp)/' \
  "$work/CMakeLists.txt" >"$work/twice/CMakeLists.txt"
grep -q 'SOURCES hello.cpp ENTRY hello.cpp' "$work/twice/CMakeLists.txt"
if cmake -S "$work/twice" -B "$work/twice/b" -DCMAKE_PREFIX_PATH="$prefix" >"$work/twice.log" 2>&1; then
  echo "trainer_add_plugin accepted hello.cpp as both SOURCES and ENTRY" >&2; exit 1
fi
grep -qF 'hello.cpp is both in SOURCES and the ENTRY' <<<"$(tr -s ' \n' ' ' <"$work/twice.log")" ||
  { cat "$work/twice.log" >&2; exit 1; }
echo "README hello plugin: ok"
