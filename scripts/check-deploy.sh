#!/usr/bin/env bash
# Checks the systemd unit as shipped (make check-deploy):
#   1. systemd-analyze security: the exposure must be at most MAX_EXPOSURE (2.0);
#   2. systemd-analyze verify, in a staging root holding the package's files (the unit's paths
#      resolve there as on an installed system), must print nothing;
#   3. the agent runs under the unit's sandbox: with systemd-run where systemd is running, and
#      otherwise under the seccomp part of it (scripts/seccomp-run.py), as a weaker check.
# In 3 the agent runs on the simulated sensor against a mosquitto on loopback (IPv4 and IPv6),
# and must connect, publish online and, on SIGTERM, offline, and exit 0.
#
#   scripts/check-deploy.sh [PACKAGE.deb]    default: the one make deb put in .build/deb
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
unit=deploy/plumb.service
MAX_EXPOSURE=${MAX_EXPOSURE:-2.0}
arch=$(dpkg --print-architecture)
deb=${1:-$(ls .build/deb/plumb_*_"$arch".deb 2>/dev/null | head -n1 || true)}

say() { printf '== %s\n' "$*"; }
# systemd-run, systemctl and /run need root; a user (make check-deploy on the Pi) goes through sudo.
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }
fail() { printf 'check-deploy: error: %s\n' "$*" >&2; exit 1; }
indent() { sed 's/^/    | /'; }
failures=0

[[ -n $deb && -f $deb ]] || fail "no package to check the unit in; build it with: make deb"
command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing; run scripts/install-deps.sh deb-checks"

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
# The agent runs as nobody in step 3 and must read what is staged here.
chmod 0755 "$work"

say "systemd-analyze security --offline=yes $unit"
systemd-analyze security --offline=yes --no-pager "$unit" >"$work/security.log" 2>&1 || true
# The items still open, then the verdict; the passed ones are in the full table.
grep -v '^✓' "$work/security.log" | indent
exposure=$(sed -n 's/.*Overall exposure level for plumb.service: \([0-9.]*\).*/\1/p' "$work/security.log")
[[ -n $exposure ]] || fail "no exposure figure in systemd-analyze's output (above)"
if awk -v e="$exposure" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(e <= m) }'; then
    echo "check-deploy: exposure $exposure (at most $MAX_EXPOSURE): ok"
else
    echo "check-deploy: exposure $exposure is above $MAX_EXPOSURE: harden $unit (see the ✗ items above)"
    failures=$((failures + 1))
fi

say "systemd-analyze verify plumb.service, in a staging root of $deb"
root="$work/root"
dpkg-deb -x "$deb" "$root"
cmp -s "$root/lib/systemd/system/plumb.service" "$unit" \
    || fail "$deb holds another plumb.service than $unit; rebuild it with: make deb"
# The units plumb.service pulls in (sysinit.target, network-online.target, …) and ExecReload's
# /bin/kill, from this machine, so the staged root resolves them; the package's files win.
cp -an /lib/systemd/system/. "$root/lib/systemd/system/"
install -D -m 0755 /bin/kill "$root/bin/kill"
# Documentation=man:plumb(1) is looked up with man; MANPATH points it at the staged page.
verify_rc=0
MANPATH="$root/usr/share/man" systemd-analyze verify --root="$root" plumb.service \
    >"$work/verify.log" 2>&1 || verify_rc=$?
if [[ $verify_rc -eq 0 && ! -s $work/verify.log ]]; then
    echo "check-deploy: verify: clean (no output, exit 0)"
else
    indent <"$work/verify.log"
    echo "check-deploy: verify reported the problems above (exit $verify_rc): fix $unit"
    failures=$((failures + 1))
fi

# A mosquitto on free loopback ports, IPv4 and IPv6, for the agent runs below.
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
start_broker() {
    port4=$(free_port)
    port6=$(free_port)
    cat >"$work/mosquitto.conf" <<CONF
listener $port4 127.0.0.1
listener $port6 ::1
allow_anonymous true
persistence false
log_dest none
CONF
    # `user root` keeps it from switching to the mosquitto user, which can't read $work.
    [[ $(id -u) -eq 0 ]] && echo "user root" >>"$work/mosquitto.conf"
    "$(command -v mosquitto || echo /usr/sbin/mosquitto)" -c "$work/mosquitto.conf" 2>"$work/mosquitto.log" &
    pids+=($!)
    for _ in $(seq 50); do
        mosquitto_pub -h 127.0.0.1 -p "$port4" -t plumb-check/ping -n 2>/dev/null && return 0
        sleep 0.1
    done
    fail "mosquitto did not start on 127.0.0.1:$port4"
}
# watch_status NAME PORT HOST: records plumb/<id>/status as the agent publishes it.
watch_status() {
    mosquitto_sub -h "$3" -p "$2" -t "plumb/$1/status" -W 40 >"$work/$1.status" 2>/dev/null &
    pids+=($!)
    sleep 0.3
}
# expect_run NAME RC: the agent exited 0 and published online, then offline.
expect_run() {
    local name=$1 rc=$2
    sleep 0.5
    indent <"$work/$name.log" | tail -n 8
    if [[ $rc -eq 0 ]] && [[ $(tr '\n' ' ' <"$work/$name.status") == "online offline " ]]; then
        echo "check-deploy: $name: connected, published online and offline, exit 0: ok"
    else
        echo "check-deploy: $name: exit $rc, status messages: $(tr '\n' ' ' <"$work/$name.status")(want: online offline, exit 0)"
        failures=$((failures + 1))
    fi
}
# change_setting NAME PORT HOST: a live setting changed over MQTT, which the agent saves in its
# state directory (settings.json): the sandbox must let it write there.
change_setting() {
    sleep 3
    mosquitto_pub -h "$3" -p "$2" -t "plumb/$1/config/heartbeat_s/set" -m 10
    sleep 2
}
# expect_saved NAME FILE: the setting reached the state directory.
expect_saved() {
    if "${@:3}" test -s "$2"; then
        echo "check-deploy: $1: the changed setting was saved in $2: ok"
    else
        echo "check-deploy: $1: no $2: the agent could not write its state directory"
        failures=$((failures + 1))
    fi
}
# The [Service] settings that make up the sandbox, as systemd-run -p arguments.
sandbox_properties() {
    sed -n '/^\[Service\]/,/^\[/p' "$unit" | grep -E '^[A-Za-z]+=' | grep -Ev \
        '^(Type|ExecStart|ExecReload|Restart|RestartSec|RestartPreventExitStatus|User|Group|SupplementaryGroups|StateDirectory)=' \
        | sed 's/^/-p\n/'
}

if [[ -d /run/systemd/system ]]; then
    say "the agent under the unit's whole sandbox, with systemd-run"
    start_broker
    # ProtectHome and PrivateTmp hide a checkout in /home or /tmp: the binary and config go to
    # /run, which the sandbox keeps (read-only).
    run_dir=$(as_root mktemp -d /run/plumb-check.XXXXXX)
    trap 'cleanup; as_root rm -rf "$run_dir"' EXIT
    as_root install -m 0755 "$root/usr/bin/plumb" "$run_dir/plumb"
    as_root install -m 0644 "$root/etc/plumb/plumb.yaml" "$run_dir/plumb.yaml"
    as_root chmod 0755 "$run_dir"
    mapfile -t props < <(sandbox_properties)
    if getent passwd plumb >/dev/null; then user=(-p User=plumb -p Group=plumb); else
        echo "    (no user plumb here, the package isn't installed: running as nobody)"
        user=(-p User=nobody -p Group=nogroup)
    fi
    getent group i2c >/dev/null && user+=(-p SupplementaryGroups=i2c)
    for family in 4 6; do
        name=sandbox-ipv$family
        if [[ $family == 4 ]]; then url="mqtt://127.0.0.1:$port4"; host=127.0.0.1; port=$port4
        else url="mqtt://[::1]:$port6"; host=::1; port=$port6; fi
        watch_status "$name" "$port" "$host"
        # A state directory of its own, so a real /var/lib/plumb is never touched.
        as_root systemd-run --wait --pipe --quiet --collect --unit="plumb-check-$name-$$" \
            --service-type=notify "${props[@]}" "${user[@]}" -p StateDirectory=plumb-check \
            "$run_dir/plumb" run --config "$run_dir/plumb.yaml" --sensor sim --broker "$url" \
            --device-id "$name" --state-dir /var/lib/plumb-check \
            </dev/null >"$work/$name.log" 2>&1 &
        runner=$!
        change_setting "$name" "$port" "$host"
        as_root systemctl stop "plumb-check-$name-$$.service" || true
        rc=0; wait "$runner" || rc=$?
        expect_run "$name" "$rc"
        expect_saved "$name" /var/lib/plumb-check/settings.json as_root
        as_root rm -rf /var/lib/plumb-check
    done
    # DevicePolicy=closed with DeviceAllow=char-i2c: the agent must still open the bus.
    for bus in /dev/i2c-*; do
        [[ -e $bus ]] || continue
        out=$(as_root systemd-run --wait --pipe --quiet --collect "${props[@]}" "${user[@]}" \
            "$run_dir/plumb" probe --bus "$bus" </dev/null 2>&1 || true)
        printf '%s\n' "$out" | indent
        if grep -qi 'not permitted\|permission denied\|EPERM\|EACCES' <<<"$out"; then
            echo "check-deploy: the sandbox refuses $bus"; failures=$((failures + 1))
        else
            echo "check-deploy: $bus opens in the sandbox (a missing chip is fine here): ok"
        fi
        break
    done
else
    say "the agent under the unit's sandbox with systemd-run: skipped"
    echo "check-deploy: systemd is not running here (no /run/systemd/system: a container or a chroot)," \
         "so systemd-run can't start a sandboxed unit; run make check-deploy on the Pi for that check."
    if /usr/bin/python3 -c 'import seccomp' 2>/dev/null; then
        say "the agent under the unit's seccomp filters (scripts/seccomp-run.py), as nobody, no capabilities"
        echo "    (SystemCallFilter, SystemCallArchitectures, RestrictAddressFamilies, MemoryDenyWriteExecute,"
        echo "    LockPersonality, NoNewPrivileges; not the mounts, the device cgroup or the other namespaces)"
        start_broker
        # As nobody without capabilities, like User= and CapabilityBoundingSet=; a user running
        # this stays themselves (and has none anyway).
        if [[ $(id -u) -eq 0 ]]; then
            install -d -o nobody -m 0700 "$work/state"
            drop=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all)
        else
            install -d -m 0700 "$work/state"
            drop=()
        fi
        # sd_notify's socket, as systemd would give: READY=1 must arrive through the filters.
        /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); s.settimeout(30)
with open(sys.argv[2], "w") as out:
    while True:
        try: out.write(s.recv(4096).decode() + "\n"); out.flush()
        except socket.timeout: break
' "$work/notify" "$work/notify.log" &
        pids+=($!)
        sleep 0.3
        chmod 0777 "$work/notify"
        for family in 4 6; do
            name=seccomp-ipv$family
            if [[ $family == 4 ]]; then url="mqtt://127.0.0.1:$port4"; host=127.0.0.1; port=$port4
            else url="mqtt://[::1]:$port6"; host=::1; port=$port6; fi
            watch_status "$name" "$port" "$host"
            NOTIFY_SOCKET="$work/notify" "${drop[@]}" \
                /usr/bin/python3 scripts/seccomp-run.py "$unit" -- \
                "$root/usr/bin/plumb" run --config "$root/etc/plumb/plumb.yaml" --sensor sim \
                --broker "$url" --device-id "$name" --state-dir "$work/state" \
                </dev/null >"$work/$name.log" 2>&1 &
            agent=$!
            change_setting "$name" "$port" "$host"
            kill -TERM "$agent" 2>/dev/null || true
            rc=0; wait "$agent" || rc=$?
            expect_run "$name" "$rc"
            expect_saved "$name" "$work/state/settings.json"
            rm -f "$work/state/settings.json"
        done
        if grep -qx 'READY=1' "$work/notify.log"; then
            echo "check-deploy: sd_notify READY=1 arrived through the filters: ok"
        else
            echo "check-deploy: no READY=1 on the notify socket (got: $(tr '\n' ' ' <"$work/notify.log"))"
            failures=$((failures + 1))
        fi
    else
        echo "check-deploy: python3-seccomp is missing, so the seccomp check is skipped too; run scripts/install-deps.sh deb-checks"
    fi
fi

if ((failures)); then
    echo "check-deploy: $failures check(s) failed"
    exit 1
fi
echo "check-deploy: exposure $exposure, verify clean, sandbox run ok"
