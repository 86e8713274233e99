#!/usr/bin/env bash
# Records the excerpt's development set: small projects broken on purpose, run with the real tools
# (several failures each, and the noise a real run prints around them: installs and downloads,
# lint warnings, coverage tables, progress, passing tests). Each tool's run is written to
# test/fixtures/excerpt-dev-set/raw/<tool>/ as output.txt (stdout and stderr, as a terminal or CI
# runner shows them), setup.txt (the install step before it, where there is one), command.txt and
# exit.txt. shape.ts then builds the GitHub Actions and terminal logs and their labels.
#
# A tool missing on this machine is skipped with a note and its recorded output kept.
# Usage: bash scripts/excerpt-dev-set/record.sh [tool…]
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RAW=$ROOT/test/fixtures/excerpt-dev-set/raw
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
WANT=" ${*:-all} "
# Paths of the temporary project stand where a runner checks the repository out.
APP=/home/runner/work/app/app

wanted() { [[ $WANT == " all " || $WANT == *" $1 "* ]]; }
has() { command -v "$1" >/dev/null 2>&1 || { echo "skip $2: no $1 here (recorded output kept)"; return 1; }; }
scrub() { # the temporary folder's path, and anything naming the machine's package registry
  sed -e "s#$1#$APP#g" -e "s#$WORK#/home/runner/work/_temp#g" -e 's#https\?://[^ /"'"'"']*\(registry\|npmjs\)[^ "'"'"']*#<registry>#g'
}
record() { # name dir setup-command test-command
  local name=$1 dir=$2 setup=$3 command=$4 out=$RAW/$1
  rm -rf "$out" && mkdir -p "$out"
  if [[ -n $setup ]]; then (cd "$dir" && CI=true bash -c "$setup") 2>&1 | scrub "$dir" >"$out/setup.txt"; fi
  (cd "$dir" && CI=true bash -c "$command") >"$out/output.raw" 2>&1
  echo $? >"$out/exit.txt"
  scrub "$dir" <"$out/output.raw" >"$out/output.txt" && rm "$out/output.raw"
  printf '%s\n' "$command" >"$out/command.txt"
  echo "$name: exit $(cat "$out/exit.txt"), $(wc -l <"$out/output.txt") lines"
}
project() { mkdir -p "$WORK/$1" && echo "$WORK/$1"; }

for part in "$HERE"/tools/*.sh; do
  # shellcheck source=/dev/null
  source "$part"
done
