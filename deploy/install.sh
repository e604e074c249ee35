#!/usr/bin/env bash
# Builds Plumb and installs it as a systemd service on a Raspberry Pi (or any systemd Linux).
#
#   sudo deploy/install.sh
#
# Safe to run again: it rebuilds, replaces the binary and the unit, and restarts the service.
# It never overwrites an existing /etc/plumb/plumb.yaml.
set -euo pipefail

readonly PREFIX=/usr/local/bin
readonly CONFIG_DIR=/etc/plumb
readonly CONFIG_FILE="$CONFIG_DIR/plumb.yaml"
readonly UNIT_FILE=/etc/systemd/system/plumb.service
readonly SERVICE_USER=plumb

say() { printf '==> %s\n' "$*"; }
fail() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo_root"

[[ $(id -u) -eq 0 ]] || fail "run me as root: sudo $0"
command -v systemctl >/dev/null || fail "systemctl not found; this installs a systemd service."

# The build runs as the user who called sudo, so .build stays theirs and no compiler runs as root.
build_user=${SUDO_USER:-root}
as_builder() {
    if [[ $build_user == root ]]; then "$@"; else sudo -u "$build_user" -H "$@"; fi
}
# A login shell, so a PATH set in the builder's profile (e.g. /opt/swift/usr/bin) counts.
swift_bin=$(as_builder bash -lc 'command -v swift' 2>/dev/null || command -v swift || true)
if [[ -z $swift_bin ]]; then
    fail "swift not found for $build_user. Install Swift 6.1 or later for $(uname -m) from
https://www.swift.org/install/linux/ (on Raspberry Pi OS 64-bit: unpack the aarch64 Debian 12 tarball
to /opt/swift and add /opt/swift/usr/bin to PATH in ~/.profile), then run me again."
fi
# The C libraries Plumb links, installed only when missing (apt-get update runs at most once).
missing=()
for pair in yaml.h:libyaml-dev mosquitto.h:libmosquitto-dev systemd/sd-daemon.h:libsystemd-dev; do
    [[ -e /usr/include/${pair%%:*} ]] || missing+=("${pair##*:}")
done
if ((${#missing[@]})); then
    say "installing ${missing[*]}"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
        fail "could not install ${missing[*]}; install them with apt-get and run me again"
    fi
fi

say "building plumb (release) with $swift_bin as $build_user; this takes a few minutes on a Pi"
as_builder "$swift_bin" build -c release --product plumb --static-swift-stdlib
bin_dir=$(as_builder "$swift_bin" build -c release --product plumb --static-swift-stdlib --show-bin-path)
[[ -x $bin_dir/plumb ]] || fail "the build did not produce $bin_dir/plumb"

say "installing $PREFIX/plumb"
install -D -m 0755 "$bin_dir/plumb" "$PREFIX/plumb"

if ! getent group i2c >/dev/null; then
    say "creating the i2c group (Raspberry Pi OS has it; udev gives it /dev/i2c-*)"
    groupadd --system i2c
fi
if id "$SERVICE_USER" >/dev/null 2>&1; then
    say "user $SERVICE_USER exists; making sure it is in the i2c group"
    usermod -a -G i2c "$SERVICE_USER"
else
    say "creating the system user $SERVICE_USER (no login, no home)"
    useradd --system --user-group --groups i2c --no-create-home --home-dir /var/lib/plumb \
        --shell /usr/sbin/nologin "$SERVICE_USER"
fi

install -d -m 0750 -o root -g "$SERVICE_USER" "$CONFIG_DIR"
if [[ -e $CONFIG_FILE ]]; then
    say "keeping the existing $CONFIG_FILE (the new example is in $repo_root/config/plumb.yaml)"
else
    say "installing the example config to $CONFIG_FILE; edit it, then: sudo systemctl restart plumb"
    install -m 0640 -o root -g "$SERVICE_USER" config/plumb.yaml "$CONFIG_FILE"
fi

say "installing $UNIT_FILE"
install -m 0644 deploy/plumb.service "$UNIT_FILE"
was_running=no
systemctl is-active --quiet plumb.service && was_running=yes
systemctl daemon-reload
say "enabling and starting plumb"
# A config error makes the start fail: report it below rather than stopping here.
systemctl enable --now plumb.service || true
if [[ $was_running == yes ]]; then
    say "restarting plumb to run the new binary"
    systemctl restart plumb.service || true
fi

if systemctl is-active --quiet plumb.service; then
    say "plumb is running. Logs: journalctl -u plumb -f"
else
    systemctl --no-pager status plumb.service || true
    fail "plumb did not start; see the status above and journalctl -u plumb. Fix $CONFIG_FILE, then: sudo systemctl restart plumb"
fi
