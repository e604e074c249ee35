#!/usr/bin/env bash
# Makes sure the project's Home Assistant conformance check (Tests/HAConformance) is installed
# and works before the tests run, so its one-off install (Home Assistant from PyPI into
# ~/.cache/plumb/ha-<version>/, about two minutes) shows here rather than inside a test that
# times out. Idempotent: about a second once cached.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
checker=$here/Tests/HAConformance/ha-conformance
if [ ! -x "$checker" ]; then
  echo "prepare-ha-conformance: $checker is missing or not executable; restore it with" \
       "'git checkout -- Tests/HAConformance' (and chmod +x it)." >&2
  exit 1
fi
if ! "$checker" setup; then
  echo "prepare-ha-conformance: could not set up Home Assistant for the tests; the lines above say" \
       "why. Fix that and run 'make test' again." >&2
  exit 1
fi
# A known-good message must conform and a known-bad one must not, or the tests would learn nothing.
good='{"topic":"homeassistant/sensor/plumb_check/tilt/config","payload":"{\"name\":\"Tilt\",\"state_topic\":\"plumb/check/state\",\"unique_id\":\"plumb_check_tilt\"}"}'
bad='{"topic":"homeassistant/sensor/plumb_check/tilt/config","payload":"{\"name\":\"Tilt\",\"state_topic\":\"plumb/check/state\",\"unique_id\":\"plumb_check_tilt\",\"device_class\":\"angle\"}"}'
if ! printf '%s\n' "$good" | "$checker" check --strict --text; then
  echo "prepare-ha-conformance: the check refused a known-good discovery message; see above." >&2
  exit 1
fi
if printf '%s\n' "$bad" | "$checker" check --text >/dev/null 2>&1; then
  echo "prepare-ha-conformance: the check accepted a message Home Assistant refuses (device_class angle):" \
       "it is not checking anything. Delete ~/.cache/plumb/ha-* and run again." >&2
  exit 1
fi
