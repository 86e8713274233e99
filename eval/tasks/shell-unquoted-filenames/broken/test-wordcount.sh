#!/usr/bin/env bash
set -euo pipefail
output=$(bash wordcount.sh docs)
echo "$output"
grep -qx '6 docs/release notes.md' <<<"$output" || { echo "FAIL: release notes.md not counted as one file"; exit 1; }
grep -qx 'total 16' <<<"$output" || { echo "FAIL: expected a total of 16 words"; exit 1; }
echo "ok"
