#!/usr/bin/env bash
# Builds stand-ins for the two base images compose.yaml and the Dockerfile
# name (node:20-bookworm-slim, redis:7-bookworm) on a host that cannot reach
# Docker Hub, from Debian's package mirror and this host's Node:
#
#   bash docker/base-images/build-offline.sh [NODE_TAG] [REDIS_TAG]
#   SELFDEBUG_NODE_IMAGE=NODE_TAG SELFDEBUG_REDIS_IMAGE=REDIS_TAG docker compose …
#
# node: a minimal Debian bookworm (debootstrap) with this host's node binary,
#   its headers (so node-gyp builds native modules without downloading them),
#   Node 20's npm, and a `node` user with uid 1000, as the official image has.
#   Debian's own nodejs is 18, older than the App needs (>= 20.18.1).
# redis: Debian bookworm's redis-server (7.0) with an entrypoint that behaves
#   like the official image's for compose.yaml's command: /data, the redis
#   user, and protected mode off when no config file is given.
#
# An image whose label matches what it would be built from is kept (FORCE=1
# rebuilds), so a second run takes seconds. Needs root, debootstrap and docker.
set -euo pipefail

node_image="${1:-selfdebug-base/node:20-bookworm-slim}"
redis_image="${2:-selfdebug-base/redis:7-bookworm}"
suite=bookworm
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
node_bin="${NODE_BINARY:-$(command -v node)}"
# The npm Node 20 ships with, as the official image has, from the npm registry: a newer
# npm (11.x) skips install scripts it was not told to allow, and better-sqlite3 needs its own.
npm_version="${NPM_VERSION:-10.8.2}"
node_headers="${NODE_HEADERS:-$(dirname "$(dirname "$node_bin")")/include/node}"
# Certificate authorities this host added to its own trust store (a TLS-inspecting proxy in
# front of the npm registry, say): the node image trusts them too, or `npm ci` cannot install.
local_cas=/usr/local/share/ca-certificates

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Whether $1 exists with label selfdebug.base = $2.
current() {
  [ "${FORCE:-0}" != 1 ] &&
    [ "$(docker image inspect --format '{{ index .Config.Labels "selfdebug.base" }}' "$1" 2>/dev/null || true)" = "$2" ]
}

# debootstrap minbase of $suite into $1 with the packages in $2 (comma-separated, may be empty).
bootstrap() {
  local rootfs=$1 include=${2:+--include=$2}
  echo "debootstrap $suite${2:+ with $2} (one to a few minutes)"
  # shellcheck disable=SC2086 # $include is one word or none
  debootstrap --variant=minbase $include "$suite" "$rootfs" "$mirror" >"$rootfs.log" 2>&1 || {
    tail -n 40 "$rootfs.log" >&2
    echo "debootstrap failed: check that $mirror is reachable" >&2
    exit 1
  }
}

slim() {
  rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/* "$1"/usr/share/doc/* "$1"/usr/share/man/*
}

# Removes image id $1 if $2 now names another: the stand-in it replaced, untagged (unless a container still uses it).
forget() {
  [ -n "$1" ] && [ "$1" != "$(docker image inspect --format '{{.Id}}' "$2")" ] && docker rmi "$1" >/dev/null 2>&1
  return 0
}

size() { docker image inspect --format '{{.Size}}' "$1" | awk '{printf "%.0f MB", $1/1e6}'; }

build_node() {
  local version key rootfs=$work/node previous
  version=$("$node_bin" --version)
  key="$suite,node-$version,npm-$npm_version"
  local cas=()
  mapfile -t cas < <(find "$local_cas" -name '*.crt' -type f 2>/dev/null | sort)
  [ ${#cas[@]} -eq 0 ] || key="$key,cas-$(cat "${cas[@]}" | sha256sum | cut -c1-12)"
  if current "$node_image" "$key"; then
    echo "image $node_image already present ($key)"
    return
  fi
  # The App's engines field: node >= 20.18.1.
  [ "$(printf '%s\n' 20.18.1 "${version#v}" | sort -V | head -n 1)" = 20.18.1 ] || {
    echo "the host's node ($node_bin) is $version; the App needs >= 20.18.1 (set NODE_BINARY)" >&2
    exit 1
  }
  [ -f "$node_headers/node.h" ] || { echo "no Node headers at $node_headers (set NODE_HEADERS)" >&2; exit 1; }
  (cd "$work" && npm pack --silent "npm@$npm_version" >/dev/null) || { echo "npm pack npm@$npm_version failed" >&2; exit 1; }
  bootstrap "$rootfs" ca-certificates
  # Laid out as the official image is: everything under /usr/local.
  install -D -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm" "$rootfs/usr/local/include"
  tar -xzf "$work/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner
  cp -a "$node_headers" "$rootfs/usr/local/include/node"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  local trust=()
  if [ ${#cas[@]} -gt 0 ]; then
    mkdir -p "$rootfs/usr/local/share/ca-certificates/host"
    cp "${cas[@]}" "$rootfs/usr/local/share/ca-certificates/host/"
    chroot "$rootfs" /usr/sbin/update-ca-certificates >/dev/null 2>&1
    # Node trusts its own list, not the system's: point it at the system's, which now has them.
    trust=(--change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt')
  fi
  chroot "$rootfs" /usr/sbin/groupadd --gid 1000 node
  chroot "$rootfs" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  # The binary is this host's: the check that bookworm's libraries are enough for it.
  chroot "$rootfs" /usr/local/bin/npm --version >/dev/null || {
    echo "the host's node ($node_bin) does not run on $suite's libraries:" >&2
    ldd "$node_bin" >&2
    exit 1
  }
  slim "$rootfs"
  previous=$(docker image inspect --format '{{.Id}}' "$node_image" 2>/dev/null || true)
  tar -C "$rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=${version#v}" \
    --change 'ENV npm_config_nodedir=/usr/local' \
    "${trust[@]}" \
    --change 'CMD ["node"]' \
    --change "LABEL selfdebug.base=$key" \
    - "$node_image" >/dev/null
  forget "$previous" "$node_image"
  echo "built $node_image ($key, $(size "$node_image"))"
}

build_redis() {
  local key rootfs=$work/redis previous
  key="$suite,redis-server"
  if current "$redis_image" "$key"; then
    echo "image $redis_image already present ($key)"
    return
  fi
  bootstrap "$rootfs" redis-server
  cat >"$rootfs/usr/local/bin/docker-entrypoint.sh" <<'EOF'
#!/bin/sh
# As the official redis image's entrypoint does for `redis-server ARGS`: no config
# file means protected mode would refuse every other container, so turn it off;
# own /data, and run as the redis user.
set -e
case "$1" in -*) set -- redis-server "$@" ;; esac
if [ "$1" = redis-server ]; then
  case " $* " in *" --protected-mode "*) ;; *) set -- "$@" --protected-mode no ;; esac
  if [ "$(id -u)" = 0 ]; then
    find . \! -user redis -exec chown redis:redis '{}' +
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi
exec "$@"
EOF
  chmod 0755 "$rootfs/usr/local/bin/docker-entrypoint.sh"
  mkdir -p "$rootfs/data"
  chroot "$rootfs" /bin/chown redis:redis /data
  slim "$rootfs"
  previous=$(docker image inspect --format '{{.Id}}' "$redis_image" 2>/dev/null || true)
  tar -C "$rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'WORKDIR /data' \
    --change 'VOLUME /data' \
    --change 'EXPOSE 6379' \
    --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
    --change 'CMD ["redis-server"]' \
    --change "LABEL selfdebug.base=$key" \
    - "$redis_image" >/dev/null
  forget "$previous" "$redis_image"
  echo "built $redis_image ($key, $(size "$redis_image"))"
}

# Side by side: each is mostly waiting for the mirror and the disk.
build_node &
node_pid=$!
build_redis &
redis_pid=$!
status=0
wait "$node_pid" || status=1
wait "$redis_pid" || status=1
exit "$status"
