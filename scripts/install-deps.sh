#!/usr/bin/env bash
# Installs the Debian packages Plumb builds, tests and runs against. Idempotent: it checks first,
# runs `apt-get update` at most once (a fresh Debian image has no package lists), and installs
# only what is missing. Safe to run on every `make` invocation.
set -euo pipefail

# package name -> a check that succeeds when it is already present
declare -A check=(
  [pkg-config]="command -v pkg-config"
  [gcc]="command -v cc"
  [libmosquitto-dev]="pkg-config --exists libmosquitto"
  [libyaml-dev]="pkg-config --exists yaml-0.1"
  [libsystemd-dev]="pkg-config --exists libsystemd"
  [mosquitto]="command -v mosquitto || test -x /usr/sbin/mosquitto"
  [mosquitto-clients]="command -v mosquitto_rr"
  [openssl]="command -v openssl"
  [librsvg2-bin]="command -v rsvg-convert"
  # Tests/HAConformance puts Home Assistant into a virtualenv of its own.
  [python3]="command -v python3"
  [python3-venv]="python3 -c 'import venv, ensurepip'"
)

missing=()
for pkg in "${!check[@]}"; do
  if ! bash -c "${check[$pkg]}" >/dev/null 2>&1; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
  else
    echo "install-deps: missing packages (${missing[*]}) and not root; install them with apt-get, or re-run as root." >&2
    exit 1
  fi
else
  SUDO=
fi

echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# An empty list dir means `apt-get update` never ran on this image; packages would not be found.
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
