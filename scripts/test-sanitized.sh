#!/usr/bin/env bash
# Runs the whole test suite under a sanitizer (make test-asan, make test-tsan).
#
#   scripts/test-sanitized.sh address|thread [swift test arguments…]   e.g. --filter MQTTTests
#
# Builds everything of ours (products and tests) with --sanitize=KIND in a scratch path of its
# own (.build/asan, .build/tsan), so the plain build cache in .build survives. The tests run the
# sanitized `plumb` from there (PLUMB_PRODUCTS_DIR). mosquitto, Home Assistant's Python, rsvg
# and the other tools the suite starts are not ours and run as installed.
#
# Every sanitizer report, from the test runner or from any `plumb` it starts, goes to a file in
# .build/<kind>/reports (log_path): a report on a child's stderr would be lost in tests that only
# read its exit status. The run fails if any report is there, whatever the tests said, and
# prints them. Suppressions: Tests/Sanitizers/*.supp, each entry with its reason.
#
# Sanitized processes are several times slower; PLUMB_TEST_TIME_SCALE (default 4 for address,
# 8 for thread) stretches the harness's time-outs (Tests/BrokerHarness/TestTimeScale.swift).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
SWIFT=${SWIFT:-swift}
SWIFT_FLAGS=${SWIFT_FLAGS:--Xswiftc -warnings-as-errors}
TEST_WIDTH=${TEST_WIDTH:-4}

say() { printf 'test-sanitized: %s\n' "$*" >&2; }
fail() { printf 'test-sanitized: error: %s\n' "$*" >&2; exit 1; }

kind=${1:-}
[[ $# -gt 0 ]] && shift
case $kind in
    address) short=asan; scale=4 ;;
    thread) short=tsan; scale=8 ;;
    *) fail "usage: $0 address|thread [swift test arguments…]" ;;
esac
command -v "$SWIFT" >/dev/null || fail "no Swift toolchain on PATH; see docs/getting-started/raspberry-pi.md, 'Install on a Raspberry Pi'"

scratch=.build/$short
supp=$repo/Tests/Sanitizers
reports=$repo/$scratch/reports
# shellcheck disable=SC2206 # SWIFT_FLAGS is a list of words, as in the Makefile
flags=($SWIFT_FLAGS)

say "building with --sanitize=$kind in $scratch (a full build the first time: several minutes)"
start=$(date +%s)
nice -n 10 "$SWIFT" build --build-tests --sanitize="$kind" --scratch-path "$scratch" "${flags[@]}"
built=$(date +%s)
products=$("$SWIFT" build --sanitize="$kind" --scratch-path "$scratch" "${flags[@]}" --show-bin-path)
[[ -x $products/plumb ]] || fail "no sanitized plumb at $products/plumb after the build"
say "built in $((built - start)) s; products in $products"

rm -rf "$reports"
mkdir -p "$reports"
common="log_path=$reports/$short:log_exe_name=1:print_suppressions=0"
case $kind in
    address)
        # detect_leaks: LeakSanitizer at every exit (on by default on Linux; said here so a
        # changed default cannot turn it off unnoticed). detect_stack_use_after_return: a
        # pointer to a returned frame's locals is caught too (off by default; costs little here).
        export ASAN_OPTIONS="$common:detect_leaks=1:detect_stack_use_after_return=1:suppressions=$supp/asan.supp"
        export LSAN_OPTIONS="$common:suppressions=$supp/lsan.supp"
        ;;
    thread)
        export TSAN_OPTIONS="$common:suppressions=$supp/tsan.supp:second_deadlock_stack=1"
        ;;
esac
export PLUMB_PRODUCTS_DIR=$products
export PLUMB_TEST_TIME_SCALE=${PLUMB_TEST_TIME_SCALE:-$scale}

say "running the tests (width $TEST_WIDTH, time-outs x$PLUMB_TEST_TIME_SCALE); reports go to $reports"
status=0
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$TEST_WIDTH \
    nice -n 5 "$SWIFT" test --skip-build --sanitize="$kind" --scratch-path "$scratch" "${flags[@]}" "$@" || status=$?
finished=$(date +%s)
say "tests ran in $((finished - built)) s, exit status $status"

shopt -s nullglob
found=("$reports"/*)
if [[ ${#found[@]} -gt 0 ]]; then
    for report in "${found[@]}"; do
        printf '\n===== %s =====\n' "$report" >&2
        cat "$report" >&2
    done
    fail "${#found[@]} sanitizer report(s) above (in $reports). Fix the code; suppress only what is" \
         "not ours, with the reason, in Tests/Sanitizers/ (see README, Sanitizers)."
fi
[[ $status -eq 0 ]] || fail "the tests failed under the $kind sanitizer (no sanitizer report); see above"
say "clean: the tests passed under the $kind sanitizer, no reports"
