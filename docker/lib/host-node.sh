# Installs this host's Node into a debootstrapped root filesystem, laid out as
# the official node image is (everything under /usr/local): the node binary,
# its headers (so node-gyp builds native modules without downloading them),
# an npm from the npm registry, and corepack with its yarn and pnpm shims.
# Debian bookworm's own nodejs is 18, older than current projects need.
#
# Sourced by docker/executor/build-offline.sh and docker/base-images/build-offline.sh.
# Settings: NODE_BINARY (default: the node on PATH), NODE_HEADERS, NPM_VERSION.

node_bin="${NODE_BINARY:-$(command -v node)}"
node_prefix="$(dirname "$(dirname "$node_bin")")"
node_headers="${NODE_HEADERS:-$node_prefix/include/node}"
# The npm Node 20 ships with, as the official image has: a newer npm (11.x) skips
# install scripts it was not told to allow, which native modules need.
npm_version="${NPM_VERSION:-10.8.2}"

# What an image built with this Node is built from, for its label.
host_node_key() {
  printf 'node-%s,npm-%s' "$("$node_bin" --version)" "$npm_version"
}

# install_host_node ROOTFS WORKDIR: copies node, headers, npm and corepack into ROOTFS.
install_host_node() {
  local rootfs=$1 work=$2 version corepack
  version=$("$node_bin" --version)
  # The App's engines field: node >= 20.18.1.
  [ "$(printf '%s\n' 20.18.1 "${version#v}" | sort -V | head -n 1)" = 20.18.1 ] || {
    echo "the host's node ($node_bin) is $version; the App needs >= 20.18.1 (set NODE_BINARY)" >&2
    return 1
  }
  [ -f "$node_headers/node.h" ] || { echo "no Node headers at $node_headers (set NODE_HEADERS)" >&2; return 1; }
  [ -f "$work/npm-$npm_version.tgz" ] || (cd "$work" && npm pack --silent "npm@$npm_version" >/dev/null) || {
    echo "npm pack npm@$npm_version failed" >&2
    return 1
  }
  install -D -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm" "$rootfs/usr/local/include"
  tar -xzf "$work/npm-$npm_version.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1 --no-same-owner
  cp -a "$node_headers" "$rootfs/usr/local/include/node"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  # Corepack ships with Node; its shims fetch yarn or pnpm (through setup's proxy) on first use.
  corepack="$node_prefix/lib/node_modules/corepack"
  if [ -f "$corepack/dist/corepack.js" ]; then
    cp -a "$corepack" "$rootfs/usr/local/lib/node_modules/corepack"
    ln -sf ../lib/node_modules/corepack/dist/corepack.js "$rootfs/usr/local/bin/corepack"
    chroot "$rootfs" /usr/local/bin/node /usr/local/bin/corepack enable --install-directory /usr/local/bin
  fi
  # The binary is this host's: the check that the root filesystem's libraries are enough for it.
  chroot "$rootfs" /usr/local/bin/npm --version >/dev/null || {
    echo "the host's node ($node_bin) does not run on the image's libraries:" >&2
    ldd "$node_bin" >&2
    return 1
  }
}
