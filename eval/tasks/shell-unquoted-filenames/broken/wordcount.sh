#!/usr/bin/env bash
# Prints the number of words in every Markdown file under the folder given, then the total.
set -euo pipefail

dir=$1
total=0
for file in $(find "$dir" -name '*.md' | sort); do
  words=$(wc -w < $file)
  echo "$words $file"
  total=$((total + words))
done
echo "total $total"
