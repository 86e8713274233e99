#!/usr/bin/env bash
# Builds the executor image without an image registry: debootstrap Debian
# bookworm from the package mirror, add this host's Node (docker/lib/host-node.sh)
# and the sandbox user, and `docker import` it. Same user, paths and
# environment as docker/executor/Dockerfile.
#
#   bash docker/executor/build-offline.sh [IMAGE] [PROFILE]     (npm run image)
#
# PROFILE picks the package set (default full; also SELFDEBUG_IMAGE_PROFILE):
#   full    like GitHub's runner image: Node (npm, corepack: yarn, pnpm), Python 3
#           (pip, venv), Go, a JDK with Maven and Gradle, Ruby with bundler, Rust
#           with cargo, build-essential, cmake, git, curl, netcat, jq
#   test    what the project's own tests need: Node, Python with pytest, Go, gcc
#   node | python | go | java | ruby | rust
#           one toolchain on the common tools, for SELFDEBUG_TOOLCHAIN_IMAGES
#           (tag them e.g. selfdebug-executor:node-20; docs/environments.md)
#
# An image whose label matches what it would be built from is kept (FORCE=1
# rebuilds). Needs root, debootstrap and docker; Node profiles need a node on
# PATH (or NODE_BINARY) and the npm registry for one `npm pack`.
set -euo pipefail

image="${1:-${SELFDEBUG_TEST_IMAGE:-selfdebug-executor:latest}}"
profile="${2:-${SELFDEBUG_IMAGE_PROFILE:-full}}"
suite="${DEBIAN_SUITE:-bookworm}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# shellcheck source=../lib/host-node.sh
source "$(dirname "$0")/../lib/host-node.sh"

# What every profile has: the sandbox's shell and tools, git, and what setup's
# forwarder and namespace holder need (socat, sleep) when this is the App's default image.
common="bash,ca-certificates,coreutils,procps,util-linux,git,curl,netcat-openbsd,jq,socat,make,gcc,libc6-dev,xz-utils,unzip"
build="build-essential,cmake,pkg-config"
python="python3,python-is-python3,python3-pip,python3-venv,python3-dev"
java="openjdk-17-jdk-headless,maven,gradle"
ruby="ruby,ruby-dev,ruby-bundler"
rust="rustc,cargo"
with_node=1
case "$profile" in
  full) packages="$common,$build,$python,golang-go,$java,$ruby,$rust" ;;
  test) packages="$common,python3,python-is-python3,python3-pytest,python3-venv,python3-pip,golang-go" ;;
  # node-gyp builds native modules with python3 and a C++ compiler.
  node) packages="$common,$build,python3" ;;
  python) packages="$common,$build,$python" with_node=0 ;;
  go) packages="$common,golang-go" with_node=0 ;;
  java) packages="$common,$java" with_node=0 ;;
  ruby) packages="$common,$build,$ruby" with_node=0 ;;
  rust) packages="$common,$build,$rust" with_node=0 ;;
  *)
    echo "unknown profile \"$profile\": full, test, node, python, go, java, ruby or rust" >&2
    exit 2
    ;;
esac
key="$suite,$profile,$packages"
[ "$with_node" = 0 ] || key="$key,$(host_node_key)"

# An image built from another package list is rebuilt, so a changed list reaches every machine.
built_with=$(docker image inspect --format '{{ index .Config.Labels "selfdebug.packages" }}' "$image" 2>/dev/null || true)
if [ "$built_with" = "$key" ] && [ "${FORCE:-0}" != 1 ]; then
  echo "image $image already present ($profile)"
  exit 0
fi

work=$(mktemp -d)
rootfs="$work/rootfs"
# Whatever is still mounted inside the root filesystem (debootstrap's /proc, when its own unmount
# lost a race) must neither be imported nor deleted through: unmounted first, lazily if busy.
unmount_all() {
  { grep -o " $rootfs/[^ ]*" /proc/mounts || true; } | sort -r | while read -r target; do
    umount "$target" 2>/dev/null || umount -l "$target"
  done
}
trap 'unmount_all; rm -rf "$work"' EXIT
started=$(date +%s)

echo "debootstrap $suite ($profile) into $rootfs (one to several minutes)"
debootstrap --variant=minbase --include="$packages" "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -n 40 "$work/debootstrap.log" >&2
  echo "debootstrap failed: check that $mirror is reachable" >&2
  exit 1
}
[ "$with_node" = 0 ] || install_host_node "$rootfs" "$work"

# Same user and layout as the Dockerfile: uid 1000 owns /workspace.
chroot "$rootfs" /usr/sbin/groupadd --gid 1000 sandbox
chroot "$rootfs" /usr/sbin/useradd --uid 1000 --gid 1000 --home-dir /workspace --no-create-home --shell /bin/bash sandbox
mkdir -p "$rootfs/workspace"
chown 1000:1000 "$rootfs/workspace"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*

unmount_all
previous=$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
tar -C "$rootfs" --one-file-system -c . | docker import \
  --change 'USER 1000:1000' \
  --change 'WORKDIR /workspace' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/tmp npm_config_nodedir=/usr/local' \
  --change 'CMD ["sleep", "infinity"]' \
  --change "LABEL selfdebug.packages=$key" \
  - "$image" >/dev/null
# The image this one replaced, untagged (unless a container still uses it).
if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect --format '{{.Id}}' "$image")" ]; then
  docker rmi "$previous" >/dev/null 2>&1 || true
fi
echo "built $image ($profile, $(docker image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}'), $(($(date +%s) - started)) s)"
