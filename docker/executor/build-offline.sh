#!/usr/bin/env bash
# Builds the executor image without an image registry: debootstrap a minimal
# Debian from the package mirror, add the sandbox user, and `docker import` it.
# The result matches docker/executor/Dockerfile closely enough for the tests.
set -euo pipefail

image="${1:-${SELFDEBUG_TEST_IMAGE:-selfdebug-executor:latest}}"
suite="${DEBIAN_SUITE:-bookworm}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
packages="bash,ca-certificates,coreutils,procps,util-linux,git,python3,python-is-python3,python3-pytest,python3-venv,python3-pip,nodejs,make,gcc,libc6-dev,socat,golang-go"

# An image built from another package list is rebuilt, so a changed list reaches every machine.
built_with=$(docker image inspect --format '{{ index .Config.Labels "selfdebug.packages" }}' "$image" 2>/dev/null || true)
if [ "$built_with" = "$packages" ] && [ "${FORCE:-0}" != 1 ]; then
  echo "image $image already present"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

echo "debootstrap $suite into $rootfs (this takes about a minute)"
debootstrap --variant=minbase --include="$packages" "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -n 40 "$work/debootstrap.log" >&2
  echo "debootstrap failed: check that $mirror is reachable" >&2
  exit 1
}

# Same user and layout as the Dockerfile: uid 1000 owns /workspace.
chroot "$rootfs" /usr/sbin/groupadd --gid 1000 sandbox
chroot "$rootfs" /usr/sbin/useradd --uid 1000 --gid 1000 --home-dir /workspace --no-create-home --shell /bin/bash sandbox
mkdir -p "$rootfs/workspace"
chown 1000:1000 "$rootfs/workspace"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*

tar -C "$rootfs" -c . | docker import \
  --change 'USER 1000:1000' \
  --change 'WORKDIR /workspace' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/tmp' \
  --change 'CMD ["sleep", "infinity"]' \
  --change "LABEL selfdebug.packages=$packages" \
  - "$image" >/dev/null
echo "built $image ($(docker image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}'))"
