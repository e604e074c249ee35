#!/usr/bin/env bash
# `make test-dashboard`: Plumb's dashboard in a real Home Assistant, looked at in a real browser
# (Tests/Dashboard/README.md). Starts a private mosquitto, the agent on the simulated chip (rocking,
# with a machine that runs 60 s and stands 30 s) and Home Assistant 2025.4.4 with a fresh config
# folder, each on a free 127.0.0.1 port, then Tests/Dashboard/check_dashboard.py drives Debian's
# Chromium through Playwright: a line per check, `N passed, N failed`, nonzero on any failure.
#
#   DASHBOARD_SECONDS   how long the recorder's rows are measured over (default 600)
#   PLUMB_BIN           the agent (default .build/debug/plumb)
#   PLUMB_DASHBOARD_KEEP=1  keep the temp folder (HA's log, database, config) and say where
#
# Installs on the first run only: Debian's chromium (scripts/install-deps.sh dashboard) and a
# virtualenv ~/.cache/plumb/dashboard-2025.4.4 with Home Assistant, its frontend, the runtime
# requirements of the integrations used (pinned by HA's own manifests) and Playwright (which
# drives /usr/bin/chromium: no `playwright install`). Every process it starts is stopped by pid.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
BIN=${PLUMB_BIN:-.build/debug/plumb}
case $BIN in /*) ;; *) BIN=$root/$BIN ;; esac
seconds=${DASHBOARD_SECONDS:-600}
ha_version=2025.4.4
frontend_version=20250411.0   # the home-assistant-frontend that homeassistant 2025.4.4 pins
paho_version=2.1.0            # the paho-mqtt its MQTT integration pins
playwright_version=1.65.2
cache=${XDG_CACHE_HOME:-$HOME/.cache}/plumb
venv=$cache/dashboard-$ha_version
out=$root/.build/dashboard

say() { echo "test-dashboard: $*" >&2; }
die() { say "$*"; exit 2; }

[ -x "$BIN" ] || die "no agent at $BIN; run make build (or set PLUMB_BIN)."
./scripts/install-deps.sh
./scripts/install-deps.sh dashboard

# --- the virtualenv (first run only, a few minutes) ------------------------------------------
python_for_ha() {
  local pyenv=${PYENV_ROOT:-$HOME/.pyenv} py
  for py in ${PLUMB_HA_PYTHON:-} python3.13 /usr/bin/python3.13 /usr/local/bin/python3.13 "$pyenv"/versions/3.13*/bin/python3.13; do
    [ -n "$py" ] || continue
    "$py" -c 'import sys; assert sys.version_info[:2] == (3, 13); print(sys.executable)' 2>/dev/null && return
  done
  die "Home Assistant $ha_version needs Python 3.13; found none (set PLUMB_HA_PYTHON)."
}

# The integrations the configuration sets up, and the entity platforms MQTT discovery creates.
integrations="frontend http config api recorder history logbook lovelace mqtt automation
  device_automation onboarding auth websocket_api sensor binary_sensor camera image button number
  select switch text event"
stamp="$ha_version $frontend_version $paho_version $playwright_version"
ready=$venv/.plumb-ready
if [ "$(cat "$ready" 2>/dev/null)" != "$stamp" ]; then
  mkdir -p "$cache"
  exec 9>"$venv.lock"
  flock -w 1200 9 || die "gave up waiting for the lock $venv.lock"
  if [ "$(cat "$ready" 2>/dev/null)" != "$stamp" ]; then
    python=$(python_for_ha)
    say "installing Home Assistant $ha_version, its frontend and Playwright into $venv (first run only, ~3 min)"
    rm -rf "$venv"
    "$python" -m venv "$venv" >"$venv.log" 2>&1 || { cat "$venv.log" >&2; die "could not create $venv"; }
    (cd /tmp && "$venv/bin/python" -m pip install --disable-pip-version-check --progress-bar off \
        "homeassistant==$ha_version" "home-assistant-frontend==$frontend_version" \
        "paho-mqtt==$paho_version" "playwright==$playwright_version") >>"$venv.log" 2>&1 \
      || { tail -n 20 "$venv.log" >&2; die "pip could not install Home Assistant (log $venv.log); it needs PyPI."; }
    constraints=$("$venv/bin/python" -c 'import homeassistant, os; print(os.path.join(os.path.dirname(homeassistant.__file__), "package_constraints.txt"))')
    # shellcheck disable=SC2086  # one word per integration
    "$venv/bin/python" Tests/Dashboard/ha_requirements.py $integrations >"$venv/requirements.txt"
    (cd /tmp && "$venv/bin/python" -m pip install --disable-pip-version-check --progress-bar off \
        -c "$constraints" -r "$venv/requirements.txt") >>"$venv.log" 2>&1 \
      || { tail -n 20 "$venv.log" >&2; die "pip could not install HA's runtime requirements (log $venv.log)."; }
    "$venv/bin/python" -c 'import homeassistant.components.mqtt, hass_frontend, playwright.sync_api, sqlalchemy' \
      >>"$venv.log" 2>&1 || { tail -n 20 "$venv.log" >&2; die "the virtualenv does not import (log $venv.log)."; }
    echo "$stamp" >"$ready"
  fi
  exec 9>&-
fi

# --- the run ---------------------------------------------------------------------------------
work=$(mktemp -d -t plumb-dashboard.XXXXXX)
broker_pid="" agent_pid="" ha_pid=""
stop() {
  [ -n "$1" ] || return 0
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup() {
  trap - INT TERM EXIT
  stop "$ha_pid"
  stop "$agent_pid"
  stop "$broker_pid"
  if [ "${PLUMB_DASHBOARD_KEEP:-0}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
  say "took $SECONDS s; screenshots in .build/dashboard/"
}
trap cleanup INT TERM EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
wait_port() {
  for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done
  return 1
}

mqtt_port=$(free_port)
sed -e "s|@PORT@|$mqtt_port|; s|@DIR@|$work|; s|@USER@|$(id -un)|" Tests/Dashboard/mosquitto.conf.in >"$work/mosquitto.conf"
setsid "$(command -v mosquitto || echo /usr/sbin/mosquitto)" -c "$work/mosquitto.conf" >>"$work/mosquitto.log" 2>&1 &
broker_pid=$!
wait_port "$mqtt_port" || die "mosquitto did not listen on 127.0.0.1:$mqtt_port ($work/mosquitto.log)"

printf 'device:\n  name: "Plumb lathe"\ncontrol:\n  socket: %s\n' "$work/control.sock" >"$work/plumb.yaml"
mkdir -p "$work/state" "$work/ha/.storage" "$out"
"$BIN" dashboard --device-id dash --config "$work/plumb.yaml" --state-dir "$work/state" >"$work/view.yaml"
setsid "$BIN" run --config "$work/plumb.yaml" --sensor sim --sim-motion sweep --sim-vibration z:2@30 \
  --sim-machine 60:30 --broker "mqtt://127.0.0.1:$mqtt_port" --device-id dash --state-dir "$work/state" \
  >"$work/agent.log" 2>&1 &
agent_pid=$!

ha_port=$(free_port)
# Onboarding's steps but the user's marked done: the check creates the user over the onboarding
# API, and the core_config step would set up weather, radio and text-to-speech integrations.
cat >"$work/ha/.storage/onboarding" <<'JSON'
{"version": 4, "minor_version": 1, "key": "onboarding", "data": {"done": ["core_config", "analytics", "integration"]}}
JSON
sed -e "s|@HA_PORT@|$ha_port|" Tests/Dashboard/configuration.yaml.in >"$work/ha/configuration.yaml"
# The printed view as the only view of a YAML-mode dashboard.
"$venv/bin/python" - "$work/view.yaml" "$work/ha/plumb-dashboard.yaml" <<'PY'
import sys, yaml
view = yaml.safe_load(open(sys.argv[1]))
with open(sys.argv[2], "w") as f:
    f.write("# plumb dashboard --device-id dash, as a YAML-mode dashboard\n")
    yaml.safe_dump({"title": "Plumb", "views": [view]}, f, allow_unicode=True, sort_keys=False)
PY
say "broker 127.0.0.1:$mqtt_port, Home Assistant 127.0.0.1:$ha_port, measuring for $seconds s"
PYTHONPYCACHEPREFIX=$venv/pycache setsid "$venv/bin/python" -m homeassistant -c "$work/ha" --skip-pip \
  --log-file "$work/ha/home-assistant.log" >"$work/ha-stdout.log" 2>&1 &
ha_pid=$!

status=0
PYTHONPYCACHEPREFIX=$venv/pycache "$venv/bin/python" Tests/Dashboard/check_dashboard.py \
  --ha "http://127.0.0.1:$ha_port" --mqtt-port "$mqtt_port" --device-id dash \
  --dashboard "$work/ha/plumb-dashboard.yaml" --config-dir "$work/ha" --out "$out" \
  --seconds "$seconds" --ha-pid "$ha_pid" --agent-pid "$agent_pid" || status=$?
exit "$status"
