#!/usr/bin/env bash
# `make run`: the agent on the simulated ADXL345, rocking slowly, against a mosquitto it starts
# on a free loopback port (or the broker in MQTT_URL), with `mosquitto_sub -v -t 'plumb/#'`
# showing every topic as it flows (the bubble picture by its size). Ctrl-C stops all of it cleanly.
#
# Every child runs in a session of its own (setsid): the terminal's Ctrl-C goes to its whole
# foreground process group, and would stop the broker at the same moment as the agent, which then
# logs a lost broker instead of a clean stop. Here only this script gets it, and stops the agent,
# then the subscribers, then the broker, each to the end before the next.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${PLUMB_BIN:-.build/debug/plumb}
work=$(mktemp -d -t plumb-demo.XXXXXX)
broker_pid="" agent_pid="" subscriber_pids=()

stop() {
  [ -n "$1" ] || return 0
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

cleanup() {
  trap - INT TERM EXIT
  # The agent first, so its `offline` reaches the subscribers while the broker is still there.
  stop "$agent_pid"
  for pid in "${subscriber_pids[@]}"; do stop "$pid"; done
  stop "$broker_pid"
  rm -rf "$work"
}
trap cleanup INT TERM EXIT
# A pager or `tee` that Ctrl-C ends first must not kill the agent mid-stop with SIGPIPE: writes
# to it then just fail. (The children inherit the ignored signal.)
trap '' PIPE

if [ -n "${MQTT_URL:-}" ]; then
  url=$MQTT_URL
  hostport=${url#*://}
  host=${hostport%%:*}
  port=${hostport##*:}
else
  host=127.0.0.1
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  url="mqtt://$host:$port"
  mosquitto_bin=$(command -v mosquitto || echo /usr/sbin/mosquitto)
  # `user`: started as root, mosquitto would switch to the mosquitto user and could not write its
  # log into this private directory.
  cat > "$work/mosquitto.conf" <<CONF
user $(id -un)
listener $port 127.0.0.1
allow_anonymous true
persistence false
log_dest file $work/mosquitto.log
CONF
  setsid "$mosquitto_bin" -c "$work/mosquitto.conf" &
  broker_pid=$!
  for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null && break
    sleep 0.1
  done
fi

echo "broker $url; topics below (Ctrl-C stops)" >&2
echo "ask the ruler service from another shell:" >&2
echo "  mosquitto_rr -h $host -p $port -t plumb/demo/request/rise -e replies/me -m '{\"span\":\"1.2m\"}'" >&2
# The control socket in the demo's own directory (the unit's is /run/plumb/control.sock), and a
# workshop thermometer on the broker (the ADXL345 has no sensor of its own): P/state then carries
# a temperature, and the uncertainty counts it.
printf 'control:\n  socket: %s\nsensor:\n  temperature: "mqtt:demo/workshop/temperature"\n' "$work/control.sock" \
  >"$work/plumb.yaml"
echo "or the command line, through the agent: $BIN read --socket $work/control.sock (watch, probe, calibrate …)" >&2
# The bubble picture is a PNG of about 12 KB: shown by its size, not its bytes.
setsid mosquitto_sub -h "$host" -p "$port" -v -t 'plumb/#' -T 'plumb/+/bubble' &
subscriber_pids+=("$!")
setsid mosquitto_sub -h "$host" -p "$port" -t 'plumb/+/bubble' -F '%t <PNG picture, %l bytes>' &
subscriber_pids+=("$!")
# The thermometer: 22 ± 3 °C over 20 minutes, one reading every 10 s, as a Zigbee sensor would.
setsid bash -c 'while :; do
    t=$(python3 -c "import math, time; print(round(22 + 3 * math.sin(2 * math.pi * time.time() / 1200), 1))")
    mosquitto_pub -h "$0" -p "$1" -t demo/workshop/temperature -m "{\"temperature\": $t}" || true
    sleep 10
  done' "$host" "$port" &
subscriber_pids+=("$!")
# A machine that runs 2 mm/s at 30 Hz (inside the 10–39 Hz band at 100 Hz) for 60 s, then stands
# 30 s: P/vibration and the running_started/running_stopped events show up too.
setsid "$BIN" run --config "$work/plumb.yaml" --sensor sim --sim-motion sweep --sim-vibration z:2@30 --sim-machine 60:30 \
  --broker "$url" --device-id demo --state-dir "$work/state" &
agent_pid=$!
# Returns when the agent ends by itself, or at once on Ctrl-C, whose trap stops everything.
wait "$agent_pid" || true
