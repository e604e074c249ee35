#!/usr/bin/env bash
# Installs the Debian packages Plumb builds, tests and runs against. Idempotent: it checks first,
# runs `apt-get update` at most once (a fresh Debian image has no package lists), and installs
# only what is missing. Safe to run on every `make` invocation.
#
#   scripts/install-deps.sh              what make build, run, test and bench need
#   scripts/install-deps.sh deb          and what building the package needs (make deb, on the Pi)
#   scripts/install-deps.sh deb-checks   and what the package's checks need (test-deb, check-deploy)
#   scripts/install-deps.sh interop      and RabbitMQ, the second broker make test-interop runs against
#   scripts/install-deps.sh chaos        and what make chaos needs (libfaketime, for the clock jump)
#   scripts/install-deps.sh vm           and what make test-vm needs (debootstrap, QEMU, mkfs.ext4)
#   scripts/install-deps.sh dashboard    and Chromium, the browser make test-dashboard drives
set -euo pipefail

set_name=${1:-test}
case $set_name in
  test|deb|deb-checks|interop|chaos|vm|dashboard) ;;
  *) echo "install-deps: unknown set '$set_name'; use test, deb, deb-checks, interop, chaos, vm or dashboard" >&2; exit 2 ;;
esac

# package name -> a check that succeeds when it is already present
declare -A check=(
  [pkg-config]="command -v pkg-config"
  [gcc]="command -v cc"
  [libmosquitto-dev]="pkg-config --exists libmosquitto"
  [libyaml-dev]="pkg-config --exists yaml-0.1"
  [libsystemd-dev]="pkg-config --exists libsystemd"
  [libfftw3-dev]="pkg-config --exists fftw3"
  [libjansson-dev]="pkg-config --exists jansson"    # strict JSON for every input from outside
  # The bubble picture as PNG: FreeType sets its text in DejaVu Sans, libpng writes the file.
  [libfreetype-dev]="pkg-config --exists freetype2"
  [libpng-dev]="pkg-config --exists libpng"
  [fonts-dejavu-core]="test -e /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
  [mosquitto]="command -v mosquitto || test -x /usr/sbin/mosquitto"
  [mosquitto-clients]="command -v mosquitto_rr"
  [openssl]="command -v openssl"
  [librsvg2-bin]="command -v rsvg-convert"
  # The Home Assistant conformance check (Tests/HAConformance) puts HA into a virtualenv.
  [python3]="command -v python3"
  [python3-venv]="python3 -c 'import venv, ensurepip'"
  # The zsh completion make docs writes is checked with zsh itself.
  [zsh]="command -v zsh"
)
if [ "$set_name" = chaos ]; then
  # The clock-jump scenario preloads it into the agent to move its wall clock.
  check+=([libfaketime]="test -e /usr/lib/$(uname -m)-linux-gnu/faketime/libfaketime.so.1")
fi
if [ "$set_name" = vm ]; then
  # make test-vm: a Debian 12 guest root, its disk image, and the emulator that boots it.
  check+=(
    [debootstrap]="command -v debootstrap"
    [qemu-system-x86]="command -v qemu-system-x86_64"
    [e2fsprogs]="command -v mkfs.ext4"          # mkfs.ext4 -d: a disk image without loop mounts
  )
fi
if [ "$set_name" = deb ] || [ "$set_name" = deb-checks ]; then
  check+=(
    [dpkg-dev]="command -v dpkg-shlibdeps"      # Depends from the binary's libraries
    [binutils]="command -v strip"               # the release binary is stripped
  )
fi
if [ "$set_name" = deb-checks ]; then
  check+=(
    [lintian]="command -v lintian"              # test-deb fails on a lintian error
    [systemd]="command -v systemd-analyze"      # check-deploy: security and verify
    [man-db]="command -v man"                   # verify checks the unit's man: link
    [python3-seccomp]="/usr/bin/python3 -c 'import seccomp'"  # check-deploy's seccomp run (Debian's python)
  )
fi

if [ "$set_name" = dashboard ]; then
  # make test-dashboard: Debian's Chromium, which Playwright (from PyPI) drives headless; the
  # check never downloads a browser of its own.
  check+=(
    [chromium]="test -x /usr/bin/chromium"
    # Home Assistant's camera integration loads it (through PyTurboJPEG) to scale snapshots.
    [libturbojpeg0]="ldconfig -p | grep -q libturbojpeg.so.0"
  )
fi

if [ "$set_name" = interop ]; then
  check+=(
    # Debian 12's RabbitMQ (3.10, its MQTT plugin included) and the Erlang runtime it pulls in.
    # The tests run their own node; the package's service is never used (and, without systemd,
    # never started).
    [rabbitmq-server]="test -x /usr/lib/rabbitmq/bin/rabbitmq-server && command -v epmd"
  )
fi

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

# The package enables and starts a system broker (AMQP on every interface) where systemd runs;
# the interoperability tests start a node of their own and need none.
if [[ " ${missing[*]} " == *" rabbitmq-server "* ]] && [ -d /run/systemd/system ]; then
  $SUDO systemctl disable --now rabbitmq-server >/dev/null 2>&1 || true
  echo "install-deps: stopped and disabled the rabbitmq-server service it started (the tests run their own node)" >&2
fi
