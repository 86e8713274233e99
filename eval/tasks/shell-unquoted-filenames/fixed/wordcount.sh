#!/usr/bin/env bash
# Prints the number of words in every Markdown file under the folder given, then the total.
set -euo pipefail

dir=$1
total=0
while IFS= read -r file; do
  words=$(wc -w < "$file")
  echo "$words $file"
  total=$((total + words))
done < <(find "$dir" -name '*.md' | sort)
echo "total $total"
