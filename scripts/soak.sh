#!/usr/bin/env bash
# The whole test suite, again and again, while other processes keep every core
# busy: a test that depends on timing fails here long before it fails in CI.
#
#   bash scripts/soak.sh [runs=10] [results=soak-results.md]
#
# Needs what `.ci/run` starts (a Docker engine with the test image, Redis on
# 127.0.0.1:6379); run `.ci/run` once first. SOAK_BUSY (default: the number of
# cores) busy loops run at SOAK_NICE (default 19): the suite's processes keep
# their priority, so a run takes about as long as on a quiet machine, but every
# wake-up competes for a core that is already taken, and caches are cold.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-10}
results=${2:-soak-results.md}
busy=${SOAK_BUSY:-$(nproc)}
niceness=${SOAK_NICE:-19}
export SELFDEBUG_REQUIRE_DOCKER=1 SELFDEBUG_REQUIRE_REDIS=1
export REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}
export SELFDEBUG_TEST_IMAGE=${SELFDEBUG_TEST_IMAGE:-selfdebug-executor:test}

# What the suite needs, checked before an hour of runs rather than found missing in the first.
docker image inspect "$SELFDEBUG_TEST_IMAGE" >/dev/null 2>&1 || {
  echo "soak: no test image $SELFDEBUG_TEST_IMAGE; run bash .ci/run once (or npm run image:test)" >&2
  exit 2
}
redis_address=${REDIS_URL#redis://}
redis-cli -h "${redis_address%:*}" -p "${redis_address##*:}" ping >/dev/null 2>&1 || {
  echo "soak: Redis does not answer at $REDIS_URL; start redis-server (bash .ci/run starts one)" >&2
  exit 2
}
[ -d node_modules ] || { echo "soak: run npm ci first" >&2; exit 2; }

hogs=()
stop_hogs() { for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_hogs EXIT
for _ in $(seq "$busy"); do
  nice -n "$niceness" bash -c 'while :; do :; done' &
  hogs+=($!)
done

{
  echo "Soak on $(git rev-parse --short HEAD), $(date -u +%FT%TZ): $busy busy loops at nice $niceness on $(nproc) cores."
  echo
  echo "| run | result | test files | tests | seconds | load average at the end |"
  echo "| --- | --- | --- | --- | --- | --- |"
} >"$results"

failures=0
for run in $(seq "$runs"); do
  log="soak-run-$run.log"
  started=$(date +%s)
  if npx vitest run >"$log" 2>&1; then result=passed; else result=FAILED; failures=$((failures + 1)); fi
  seconds=$(($(date +%s) - started))
  plain=$(sed 's/\x1b\[[0-9;]*m//g' "$log")
  files=$(grep -aE '^ *Test Files ' <<<"$plain" | sed -E 's/^ *Test Files +//' || true)
  tests=$(grep -aE '^ *Tests ' <<<"$plain" | sed -E 's/^ *Tests +//' || true)
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  echo "| $run | $result | $files | $tests | $seconds | $load |" >>"$results"
  echo "run $run: $result in ${seconds}s ($tests)"
  if [ "$result" = passed ]; then rm -f "$log"; fi
done
echo >>"$results"
echo "$failures of $runs runs failed; the log of each failed run is kept as soak-run-N.log." >>"$results"
cat "$results"
[ "$failures" -eq 0 ]
