#!/usr/bin/env bash
# Runs `swift test` with its arguments, keeping the whole output in .build/test.log, and on a
# failure ends with the failing tests and their issues. A run prints some 3,000 lines and a CI
# report often shows only the last of them; without this the last line says "failed with 2
# issues" and the two issues scrolled away minutes earlier.
#   scripts/run-tests.sh [swift test arguments…]      (SWIFT names the toolchain's swift)
set -uo pipefail
cd "$(dirname "$0")/.."
log=.build/test.log
mkdir -p .build
"${SWIFT:-swift}" test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo
  echo "run-tests: swift test failed (exit $status). What failed, from $log:"
  # Swift Testing marks an issue "✘ Test … recorded an issue" and indents its details under
  # it; XCTest writes "error: … failed". A crash leaves neither, so the last started test is
  # named then.
  grep -E -A4 '✘ Test .* recorded an issue|: error: .*(failed|threw)|Fatal error|Exited with (signal|unexpected)' "$log" \
    | grep -v -E '^(✔|◇|􀟈)' | head -n 80
  if ! grep -q -E '^. Test run with ' "$log"; then
    last_started=$(grep -E '^◇ Test .* started\.$' "$log" | tail -n 1)
    echo "run-tests: the run ended before its summary (a crash?); the last test to start: ${last_started#◇ Test }"
  fi
  echo "run-tests: every failing test:"
  grep -E '^✘ Test [^ ]+ failed' "$log" | head -n 40
fi
exit "$status"
