#!/usr/bin/env bash
# Under `set -o pipefail`, a pipe into a reader that may stop before its input ends (grep -q,
# grep -m, head, sed's q) fails whenever the writer is still writing: the writer dies of SIGPIPE
# and the pipeline's status is 141. `if ! echo "$x" | grep -q ...` then reads as "no match" at
# random (bash's echo writes a line at a time); scripts/demo.sh's wait loop once ended early so.
# Such a reader reads a here-string or a file instead. Prints each offending line of the shell
# scripts under the given roots that use pipefail, and fails when there is one.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: pipefail_readers.sh FILE_OR_DIR..." >&2; exit 2; }
# A file named on the command line is read whatever its name (the check's own fixture is
# test/scripts/fixtures/early_reader.bash); under a folder, the shell scripts: *.sh and .ci/run.
readers=(
  'grep[[:space:]]+(-[A-Za-z]*[qml]|--quiet|--max-count|--files-with-matches)'
  'head\b'
  'sed[[:space:]]+(-n[[:space:]]+)?[^|]*q\b'
)
early="\\|[[:space:]]*($(IFS='|'; echo "${readers[*]}"))"
hits=""
while IFS= read -r -d '' f; do
  grep -q 'pipefail' "$f" || continue
  found=$(grep -nE "$early" "$f" | grep -vE '^[0-9]+:[[:space:]]*#' || true)
  [ -z "$found" ] || hits+="$f:"$'\n'"$found"$'\n'
done < <(find "$@" -maxdepth 0 -type f -print0; find "$@" -mindepth 1 -type f \( -name '*.sh' -o -path '*/.ci/run' \) -print0)
if [ -n "$hits" ]; then
  echo "a pipe into a reader that may stop early, under pipefail:" >&2
  printf '%s' "$hits" >&2
  exit 1
fi
echo "no pipe into an early-stopping reader under pipefail"
