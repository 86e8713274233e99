#!/usr/bin/env bash
# Assembles the release tree in out/ and packs it as out/app.tar.gz.
set -euo pipefail

version=$(cat VERSION)
rm -rf out
mkdir -p out/bin out/etc
printf '#!/bin/sh\necho "app %s"\n' "$version" > out/bin/app
chmod +x out/bin/app
cp config/*.conf out/etc/
tar -czf out/app.tar.gz -C out bin etc
echo "packed app $version"
