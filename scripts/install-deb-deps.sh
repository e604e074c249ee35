#!/usr/bin/env bash
# Installs the Debian packages `make deb`, `make test-deb` and `make check-deploy` use, beyond
# those of scripts/install-deps.sh. Idempotent: it checks first, runs `apt-get update` at most
# once, and installs only what is missing.
#
#   scripts/install-deb-deps.sh build    what building the package needs (make deb, on the Pi)
#   scripts/install-deb-deps.sh          that and what its checks need (test-deb, check-deploy)
set -euo pipefail

# package name -> a check that succeeds when it is already present
declare -A check=(
  [dpkg-dev]="command -v dpkg-shlibdeps"        # Depends from the binary's libraries
  [binutils]="command -v strip"                 # the release binary is stripped
)
[ "${1:-all}" = build ] || check+=(
  [lintian]="command -v lintian"                # test-deb fails on a lintian error
  [systemd]="command -v systemd-analyze"        # check-deploy: security and verify
  [man-db]="command -v man"                     # verify checks the unit's man: link
  [python3-seccomp]="/usr/bin/python3 -c 'import seccomp'"  # check-deploy's seccomp check (Debian's python)
  [mosquitto]="command -v mosquitto || test -x /usr/sbin/mosquitto"
  [mosquitto-clients]="command -v mosquitto_sub"
)

missing=()
for pkg in "${!check[@]}"; do
  if ! bash -c "${check[$pkg]}" >/dev/null 2>&1; then
    missing+=("$pkg")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
  else
    echo "install-deb-deps: missing packages (${missing[*]}) and not root; install them with apt-get, or re-run as root." >&2
    exit 1
  fi
else
  SUDO=
fi

echo "install-deb-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
