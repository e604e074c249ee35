#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/, docs/development/testing.md, "Fuzzing") with ASan into their own scratch path
# (.build/fuzz, so the normal build cache is untouched) and runs each for FUZZ_RUNS inputs
# (default 1,000,000; `make test` runs 10,000). One line per target: inputs run, exec/s, the
# working corpus's size, and the result. A crash, a hang (an input over FUZZ_TIMEOUT seconds), a
# leak or an out-of-memory fails the run; its input is in .build/fuzz/artifacts/<target>/.
#
#   scripts/fuzz.sh [--merge] [TARGET...]     targets: see `targets` below (default: all)
#
# Each target runs on a working copy of its corpus (.build/fuzz/corpus/<target>, seeded from
# Fuzz/Corpus/<target> and kept between runs); the repository's corpus changes only with --merge
# (`make fuzz-merge`), which adds the working inputs that reach new coverage, minimised by
# libFuzzer's -merge=1.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${FUZZ_RUNS:-1000000}
timeout_s=${FUZZ_TIMEOUT:-10}
rss_mb=${FUZZ_RSS_MB:-2048}
swift=${SWIFT:-swift}
scratch=${FUZZ_SCRATCH:-.build/fuzz}
merge=false

# name  product  PLUMB_FUZZ_SERVICE  max_len (bytes: room for the seeds and their growth; the
# size limits, 64 KiB for config and 16 KiB for requests, are unit-tested instead)
targets=(
  "config-json   FuzzConfigJSON   -        4096"
  "config-key    FuzzConfigKey    -        1024"
  "yaml          FuzzYAML         -        4096"
  "ruler-ruler   FuzzRulerService ruler    2048"
  "ruler-convert FuzzRulerService convert  2048"
  "ruler-rise    FuzzRulerService rise     2048"
  "ruler-shim    FuzzRulerService shim     2048"
  "length        FuzzLength       -        128"
  "angle         FuzzAngle        -        128"
)

chosen=()
for argument in "$@"; do
  case $argument in
    --merge) merge=true ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $argument (see --help)" >&2; exit 2 ;;
    *) chosen+=("$argument") ;;
  esac
done
selected=()
for entry in "${targets[@]}"; do
  read -r name _ <<<"$entry"
  if [ ${#chosen[@]} -eq 0 ] || [[ " ${chosen[*]} " == *" $name "* ]]; then selected+=("$entry"); fi
done
if [ ${#selected[@]} -eq 0 ]; then
  echo "fuzz.sh: no target named ${chosen[*]}; the targets are:$(printf ' %s' "${targets[@]%% *}")" >&2
  exit 2
fi

# Build each product once. gold warns about every ASan helper it cannot export; that is noise,
# anything else is shown.
built=" "
for entry in "${selected[@]}"; do
  read -r _ product _ <<<"$entry"
  [[ $built == *" $product "* ]] && continue
  log=$scratch/logs/build-$product.log
  mkdir -p "$scratch/logs"
  if ! PLUMB_FUZZ=1 nice -n 10 "$swift" build --scratch-path "$scratch" -Xswiftc -warnings-as-errors \
      -Xswiftc -sanitize=fuzzer,address --product "$product" >"$log" 2>&1; then
    grep -v "Cannot export local symbol" "$log" >&2
    echo "fuzz.sh: building $product failed (log: $log)" >&2
    exit 1
  fi
  built+="$product "
done

# Swift's own crash handler, under ASan, trips over its reads of the crashed stack and keeps the
# output pipe open after the target exits; libFuzzer's handler reports the crash instead.
export SWIFT_BACKTRACE=enable=no

failed=0
printf '%-14s %10s %8s %9s %7s  %s\n' target inputs seconds exec/s corpus result
for entry in "${selected[@]}"; do
  read -r name product service max_len <<<"$entry"
  corpus=$scratch/corpus/$name
  artifacts=$scratch/artifacts/$name/
  log=$scratch/logs/$name.log
  mkdir -p "$corpus" "$artifacts"
  cp -n Fuzz/Corpus/"$name"/* "$corpus"/ 2>/dev/null || true
  dictionary=()
  [ -f "Fuzz/Dictionaries/$name.dict" ] && dictionary=(-dict="Fuzz/Dictionaries/$name.dict")
  status=0
  started=$(date +%s.%N)
  PLUMB_FUZZ_SERVICE=${service/#-/} nice -n 10 "$scratch/debug/$product" -runs="$runs" -max_len="$max_len" \
    -timeout="$timeout_s" -rss_limit_mb="$rss_mb" -print_final_stats=1 -artifact_prefix="$artifacts" \
    "${dictionary[@]}" "$corpus" >"$log" 2>&1 || status=$?
  elapsed=$(awk -v from="$started" -v to="$(date +%s.%N)" 'BEGIN { printf "%.2f", to - from }')
  # libFuzzer's own exec/s is whole inputs per whole second (0 for a run under a second).
  executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  speed=$(awk -v n="${executed:-0}" -v s="$elapsed" 'BEGIN { printf "%d", n / s }')
  size=$(find "$corpus" -type f | wc -l)
  if [ "$status" -eq 0 ]; then
    result=ok
  else
    failed=1
    kind=$(grep -m1 -oE 'ERROR: libFuzzer: [a-z-]+( [a-z]+)?|ERROR: (AddressSanitizer|LeakSanitizer): [a-z-]+' "$log" \
      || echo "exit status $status")
    input=$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)
    result="FAILED: ${kind#ERROR: } ${input:+($input)} (log: $log)"
  fi
  printf '%-14s %10s %8.1f %9s %7s  %s\n' "$name" "${executed:-?}" "$elapsed" "$speed" "$size" "$result"
  if $merge && [ "$status" -eq 0 ]; then
    before=$(find "Fuzz/Corpus/$name" -type f | wc -l)
    PLUMB_FUZZ_SERVICE=${service/#-/} "$scratch/debug/$product" -merge=1 -max_len="$max_len" \
      -timeout="$timeout_s" -rss_limit_mb="$rss_mb" "Fuzz/Corpus/$name" "$corpus" >"$log.merge" 2>&1
    echo "  merged into Fuzz/Corpus/$name: $before -> $(find "Fuzz/Corpus/$name" -type f | wc -l) inputs"
  fi
done
if [ "$failed" -ne 0 ]; then
  echo "fuzz.sh: a target failed; replay its input with the binary and the file, e.g." \
       "SWIFT_BACKTRACE=enable=no [PLUMB_FUZZ_SERVICE=rise] $scratch/debug/<Product> <input>" >&2
fi
exit "$failed"
