#!/usr/bin/env bash
# `make run`: the agent on the simulated ADXL345, rocking slowly, against a mosquitto it starts
# on a free loopback port (or the broker in MQTT_URL), with `mosquitto_sub -v -t 'plumb/#'`
# showing every topic as it flows (the bubble picture by its size). Ctrl-C stops all of it cleanly.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${PLUMB_BIN:-.build/debug/plumb}
work=$(mktemp -d -t plumb-demo.XXXXXX)
pids=()

cleanup() {
  trap - INT TERM EXIT
  # The agent first, so its `offline` reaches the subscriber before the broker goes.
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup INT TERM EXIT

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
  "$mosquitto_bin" -c "$work/mosquitto.conf" &
  pids=("$!" "${pids[@]}")
  for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null && break
    sleep 0.1
  done
fi

echo "broker $url; topics below (Ctrl-C stops)" >&2
echo "ask the ruler service from another shell:" >&2
echo "  mosquitto_rr -h $host -p $port -t plumb/demo/request/rise -e replies/me -m '{\"span\":\"1.2m\"}'" >&2
# The bubble picture is an SVG of about a kilobyte: shown by its size, not its text.
mosquitto_sub -h "$host" -p "$port" -v -t 'plumb/#' -T 'plumb/+/bubble' &
pids=("$!" "${pids[@]}")
mosquitto_sub -h "$host" -p "$port" -t 'plumb/+/bubble' -F '%t <SVG picture, %l bytes>' &
pids=("$!" "${pids[@]}")
"$BIN" run --sensor sim --sim-motion sweep --broker "$url" --device-id demo --state-dir "$work/state" &
pids=("$!" "${pids[@]}")
wait "${pids[0]}"
