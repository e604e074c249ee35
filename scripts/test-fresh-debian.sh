#!/usr/bin/env bash
# `make test-fresh`: the bare-clone acceptance test. Builds a minimal Debian 12 (bookworm) root
# with debootstrap, adds only what a new user has (the Swift toolchain, its documented runtime
# packages, git and make), clones this repository's committed HEAD into it, and runs `make test`
# there. Everything else the suite needs must be installed by the project's own scripts, so a
# missing install step fails here even when it passes on a developer's machine.
#
#   sudo make test-fresh                     # about 10 minutes, most of it the first build
#   PLUMB_FRESH_DIR=/var/tmp/x make test-fresh
#   PLUMB_FRESH_KEEP=1 make test-fresh       # keep the root afterwards, to look around in it
#
# Needs root (debootstrap, chroot, bind mounts). Only Debian's package archive is reached.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
root=${PLUMB_FRESH_DIR:-/var/tmp/plumb-fresh}
suite=bookworm

say() { printf '==> %s\n' "$*" >&2; }
fail() { printf 'test-fresh: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "needs root for debootstrap and chroot; run: sudo make test-fresh"
swift_bin=$(command -v swift || true)
[ -n "$swift_bin" ] || fail "no swift on PATH: the fresh root borrows this machine's toolchain (read-only)"
# <toolchain>/usr/bin/swift → <toolchain>; mounted at the same path inside, so PATH is the same.
toolchain=$(cd "$(dirname "$(readlink -f "$swift_bin")")/../.." && pwd)
git -C "$repo" diff --quiet HEAD -- || say "uncommitted changes are not tested: the clone takes HEAD"

if ! command -v debootstrap >/dev/null 2>&1; then
  say "installing debootstrap"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

mounts=()
cleanup() {
  local index
  for ((index = ${#mounts[@]} - 1; index >= 0; index--)); do
    umount -l "${mounts[index]}" 2>/dev/null || true
  done
  if [ -z "${PLUMB_FRESH_KEEP:-}" ]; then rm -rf --one-file-system "$root"; fi
}
trap cleanup EXIT
bind() { # bind SOURCE TARGET [ro]
  mkdir -p "$2"
  mount --bind "$1" "$2"
  mounts+=("$2")
  if [ "${3:-}" = ro ]; then mount -o remount,ro,bind "$2"; fi
}

started=$(date +%s)
rm -rf --one-file-system "$root"
say "debootstrap $suite (minbase) into $root"
debootstrap --variant=minbase "$suite" "$root" >"$root.debootstrap.log" 2>&1 \
  || fail "debootstrap failed; see $root.debootstrap.log"
rm -f "$root.debootstrap.log"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The network's trust, not the project's: where this machine reaches the package archives through
# a proxy with its own CA, the fresh root must trust that CA too (installed below).
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
fi
mount -t proc proc "$root/proc"; mounts+=("$root/proc")
bind /dev "$root/dev"
bind /dev/pts "$root/dev/pts"
bind "$toolchain" "$root$toolchain" ro
bind "$repo" "$root/src" ro

# A clean environment but for the machine's certificate settings (pip bundles its own CA list, so
# it needs PIP_CERT to trust a local CA).
trust=()
for name in SSL_CERT_FILE SSL_CERT_DIR PIP_CERT REQUESTS_CA_BUNDLE; do
  if [ -n "${!name:-}" ]; then trust+=("$name=${!name}"); fi
done
inside() { chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb CI="${CI:-}" "${trust[@]}" \
  PATH="$toolchain/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" bash -c "$1"; }

# What a new user installs by hand, from the README: the toolchain's runtime packages, git, make.
say "installing the Swift toolchain's runtime packages, git and make (docs/getting-started/raspberry-pi.md, 'Install')"
inside 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq &&
  apt-get install -y -qq --no-install-recommends binutils git gnupg2 libc6-dev libcurl4-openssl-dev \
    libedit2 libgcc-12-dev libpython3-dev libsqlite3-0 libstdc++-12-dev libxml2-dev libncurses-dev \
    libz3-dev pkg-config tzdata zlib1g-dev ca-certificates make >/dev/null && update-ca-certificates >/dev/null'

say "git clone + make test inside the fresh root"
mkdir -p "$repo/.build"
set +e
inside 'git config --global --add safe.directory /src && git clone -q /src /root/plumb &&
  cd /root/plumb && swift --version && make test' 2>&1 | tee "$repo/.build/test-fresh.log"
status=${PIPESTATUS[0]}
set -e
elapsed=$(( $(date +%s) - started ))
if [ "$status" -ne 0 ]; then
  fail "make test failed in the fresh root after ${elapsed} s (exit $status); log: .build/test-fresh.log"
fi
say "make test passed on a fresh Debian $suite from git clone, in ${elapsed} s (log: .build/test-fresh.log)"
