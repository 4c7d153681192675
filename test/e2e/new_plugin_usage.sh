#!/usr/bin/env bash
# `trainer-operator new-plugin` refuses bad arguments with exit 2 and a message naming the
# argument, writing nothing: a bad NAME, a NAME the shipped plugins hold (a policy name, an
# overlapping env claim), an unknown or missing --kind, a --dir that exists and is not empty.
#   new_plugin_usage.sh <trainer-operator binary> <shipped plugin dir>
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
export TRAINER_PLUGIN_DIR=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_usage <text the message must contain> <new-plugin args...>
expect_usage() {
  local want=$1 rc=0 out
  shift
  out=$("$bin" new-plugin "$@" 2>&1) || rc=$?
  [ "$rc" -eq 2 ] || fail "new-plugin $* exited $rc, not 2: $out"
  grep -qF -- "$want" <<<"$out" || fail "new-plugin $*: no \"$want\" in: $out"
  echo "ok: new-plugin $* -> $(head -n 1 <<<"$out")"
}

d=$tmp/out
expect_usage 'NAME "Bad_Name": must be lowercase' Bad_Name --kind ml-policy --dir "$d"
expect_usage 'NAME "9lives": must be lowercase' 9lives --kind ml-policy --dir "$d"
expect_usage 'NAME "a--b": must be lowercase' a--b --kind pod-group --dir "$d"
expect_usage 'NAME "trailing-": must be lowercase' trailing- --kind ml-policy --dir "$d"
long=$(printf 'a%.0s' {1..41})
expect_usage "NAME \"$long\": is 41 characters long; at most 40" "$long" --kind ml-policy --dir "$d"
expect_usage '--kind is required (ml-policy, pod-group)' fine --dir "$d"
expect_usage '--kind "frobnicate": unknown kind (ml-policy, pod-group)' fine --kind frobnicate --dir "$d"
expect_usage '"new-plugin" needs more arguments' --kind ml-policy
# Names the shipped plugins hold: the registry of the plugin directory says which.
expect_usage 'NAME "torch": the operator would refuse to load the plugin; plugin torch' torch --kind ml-policy --dir "$d"
expect_usage 'NAME "volcano": the operator would refuse to load the plugin; plugin volcano' volcano --kind ml-policy --dir "$d"
expect_usage 'its claim "env:PET_NNODES" overlaps "env:PET_*"' pet --kind ml-policy --dir "$d"
test ! -e "$d" || fail "a refused new-plugin wrote $d"

mkdir -p "$tmp/full" && echo keep >"$tmp/full/keep"
expect_usage "--dir \"$tmp/full\": exists and is not empty" fine --kind ml-policy --dir "$tmp/full"
[ "$(ls -A "$tmp/full")" = keep ] || fail "new-plugin wrote into a non-empty --dir"
echo x >"$tmp/afile"
expect_usage "--dir \"$tmp/afile\": exists and is not a directory" fine --kind ml-policy --dir "$tmp/afile"

# An empty --dir is fine; the default --dir is ./NAME.
mkdir "$tmp/empty"
"$bin" new-plugin fine --kind pod-group --dir "$tmp/empty" >/dev/null
test -f "$tmp/empty/fine.cpp" && test -x "$tmp/empty/ci.sh"
(cd "$tmp" && "$bin" new-plugin dflt --kind ml-policy >/dev/null)
test -f "$tmp/dflt/CMakeLists.txt" && grep -q 'trainer_add_plugin(dflt ' "$tmp/dflt/CMakeLists.txt"
cd "$tmp"
expect_usage "--dir \"dflt\": exists and is not empty" dflt --kind ml-policy
echo "new-plugin usage: ok"
