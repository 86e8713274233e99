#!/usr/bin/env bash
# What the release workflow checks before uploading the package.
set -euo pipefail
listing=$(tar -tzf out/app.tar.gz)
for entry in bin/app etc/app.conf etc/logging.conf; do
  grep -qx "$entry" <<<"$listing" || { echo "missing from the package: $entry"; exit 1; }
done
[ "$(out/bin/app)" = "app 2.7.0" ] || { echo "wrong version: $(out/bin/app)"; exit 1; }
echo "package ok"
