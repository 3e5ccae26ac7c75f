# Sourced by .ci/image: a local stand-in for docker.io/library/node:24-bookworm-slim (no registry is
# reachable here). Debian bookworm minbase from apt's configured mirror, Node 24's binary from the
# node@24 npm package, npm 11 from `npm pack`, a `node` user with uid/gid 1000, and the machine's CA bundle
# with NODE_EXTRA_CA_CERTS so that `npm install` inside a build trusts the registry. Kept as an archive
# under $CACHE_DIR/images, keyed by the Node and npm versions.
# shellcheck shell=bash

BASE_IMAGE=docker.io/library/node:24-bookworm-slim
# The runtime stage's base: the same Debian without Node and npm (see ensure_runtime_base_image).
RUNTIME_BASE_IMAGE=docker.io/library/debian:bookworm-slim
# Bumped when what the stand-ins hold changes, so that a cached one is made again.
STAND_IN_REVISION=2

apt_mirror() {
  local uri
  uri="$(sed -n 's/^URIs: *\(http[^ ]*\/debian\)\/\?$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)"
  [ -n "$uri" ] || uri="$(sed -n 's/^deb \(http[^ ]*\/debian\)\/\? bookworm .*/\1/p' /etc/apt/sources.list 2>/dev/null | head -n 1)"
  echo "${uri:-http://deb.debian.org/debian}"
}

ensure_base_image() {
  local node_dir="$CACHE_DIR/node24" node_bin node_version npm_version archive
  [ -x "$node_dir/node_modules/node/bin/node" ] || npm install --no-save --prefix "$node_dir" node@24 >/dev/null
  node_bin="$(readlink -f "$node_dir/node_modules/node/bin/node")"
  node_version="$("$node_bin" --version)"
  # The npm that runs CI when it is an npm 11, else the newest npm 11.
  npm_version="$(npm --version)"
  [ "${npm_version%%.*}" = 11 ] || npm_version="$(npm view 'npm@^11' version --json | tr -d '[]" \n' | tr ',' '\n' | sort -V | tail -n 1)"
  archive="$CACHE_DIR/images/node-$node_version-npm-$npm_version-bookworm-slim-r$STAND_IN_REVISION.tar"
  if [ "$(podman image inspect --format '{{ index .Labels "arrbiter.stand-in" }}' "$BASE_IMAGE" 2>/dev/null)" = "$node_version-$npm_version-r$STAND_IN_REVISION" ]; then
    echo "  $BASE_IMAGE: stand-in with Node $node_version and npm $npm_version"
    return
  fi
  if [ -f "$archive" ]; then
    echo "  loading $BASE_IMAGE from $archive"
    podman load -q -i "$archive" >/dev/null
    return
  fi
  echo "  making $BASE_IMAGE (debootstrap, Node $node_version, npm $npm_version)"
  local work rootfs container
  work="$(mktemp -d)"
  rootfs="$work/rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" "$(apt_mirror)" >"$work/debootstrap.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap.log"; return 1; }
  install -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
  (cd "$work" && npm pack -q "npm@$npm_version" >/dev/null)
  tar -xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  mkdir -p "$rootfs/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  chroot "$rootfs" groupadd --gid 1000 node
  chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  # What debian:bookworm-slim leaves out too (its dpkg path-excludes), and debootstrap's downloaded .debs.
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/lintian/*
  find "$rootfs"/usr/share/locale -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
  container="$(buildah from scratch)"
  buildah copy -q "$container" "$rootfs" / >/dev/null
  buildah config --env NODE_VERSION="${node_version#v}" --env YARN_VERSION= \
    --env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --label arrbiter.stand-in="$node_version-$npm_version-r$STAND_IN_REVISION" --cmd node "$container"
  buildah commit -q --format docker "$container" "$BASE_IMAGE" >/dev/null
  buildah rm "$container" >/dev/null
  rm -rf "$work"
  mkdir -p "$(dirname "$archive")"
  rm -f "$CACHE_DIR"/images/node-*-bookworm-slim.tar
  podman save -q --format docker-archive -o "$archive" "$BASE_IMAGE"
}

# The stand-in for docker.io/library/debian:bookworm-slim, the runtime stage's base: the Node stand-in's
# file system without Node, npm and the `node` user, as one layer.
ensure_runtime_base_image() {
  local key container work
  key="$(podman image inspect --format '{{ .Id }}' "$BASE_IMAGE")"
  if [ "$(podman image inspect --format '{{ index .Labels "arrbiter.stand-in" }}' "$RUNTIME_BASE_IMAGE" 2>/dev/null)" = "$key" ]; then
    echo "  $RUNTIME_BASE_IMAGE: stand-in from $BASE_IMAGE"
    return
  fi
  echo "  making $RUNTIME_BASE_IMAGE from $BASE_IMAGE without Node and npm"
  work="$(mktemp -d)"
  container="$(podman create "$BASE_IMAGE")"
  podman export -o "$work/rootfs.tar" "$container"
  podman rm "$container" >/dev/null
  mkdir "$work/rootfs"
  tar -xf "$work/rootfs.tar" -C "$work/rootfs" --exclude='usr/local/bin/*' --exclude='usr/local/lib/node_modules' \
    --exclude='home/node'
  rm "$work/rootfs.tar"
  chroot "$work/rootfs" userdel node 2>/dev/null || true
  tar -cf "$work/rootfs.tar" -C "$work/rootfs" .
  podman import -q --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' --change "LABEL arrbiter.stand-in=$key" "$work/rootfs.tar" "$RUNTIME_BASE_IMAGE" >/dev/null
  rm -rf "$work"
}
