#!/usr/bin/env bash
# Makes sure Home Assistant's own discovery validator (../shared/ha-validate) is installed before
# the tests run, so its one-off install (a minute or two, cached in ~/.cache/plumb-ha-validate)
# shows here rather than inside a test. Idempotent: about a second once cached.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
validator=${HA_VALIDATE:-$here/../shared/ha-validate/ha-validate}
if [ ! -x "$validator" ]; then
  echo "prepare-ha-validate: $validator is missing; the tests validate Home Assistant discovery with it." \
       "Check out the project beside its shared/ folder." >&2
  exit 1
fi
sample='{"name":"Tilt","state_topic":"plumb/check/state","unique_id":"plumb_check_tilt"}'
if ! "$validator" -q homeassistant/sensor/plumb_check/tilt/config "$sample" >/dev/null; then
  echo "prepare-ha-validate: $validator failed on a known-good message; see its output above." >&2
  exit 1
fi
