#!/bin/sh
# Proves fake_i2c_dev.so right without the Swift side: builds it exactly as the Swift tests do,
# builds selfcheck.c, and runs selfcheck in every configuration through the real syscalls
# (LD_PRELOAD, open, every ioctl, close, each fault mode, the log). Exits non-zero on any
# mismatch.
#
# Usage: selfcheck.sh
#   CC=clang selfcheck.sh            another compiler (default: cc)
#   SELFCHECK_VALGRIND=1 selfcheck.sh  also run each scenario under valgrind (memcheck)
set -eu

here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
cc=${CC:-cc}

# The caller's own PLUMB_FAKE_I2C_* settings must not leak into the scenarios.
for variable in $(env | sed -n 's/^\(PLUMB_FAKE_I2C_[A-Za-z0-9_]*\)=.*/\1/p'); do
    unset "$variable"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/fake-i2c-selfcheck.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

lib=$work/fake_i2c_dev.so
"$cc" -shared -fPIC -O1 -Wall -Wextra -Werror -o "$lib" "$here/fake_i2c_dev.c" -ldl
"$cc" -O1 -Wall -Wextra -Werror -pthread -o "$work/selfcheck" "$here/selfcheck.c"

device=$work/dev/i2c-7 # its directory is never created: the fake need not exist
failed=0
passed=0

runner=""
if [ "${SELFCHECK_VALGRIND:-0}" = 1 ]; then
    runner="valgrind -q --error-exitcode=99 --leak-check=no --trace-children=no"
fi

# scenario <name> [VAR=value ...]: runs selfcheck <name> with the fake active on $device.
scenario() {
    name=$1
    shift
    log=$work/$name.log
    rm -f "$log"
    # shellcheck disable=SC2086 # $runner is a word list on purpose
    if env PLUMB_FAKE_I2C_PATH="$device" PLUMB_FAKE_I2C_LOG="$log" "$@" LD_PRELOAD="$lib" \
        $runner "$work/selfcheck" "$name" "$device" "$log"; then
        passed=$((passed + 1))
        echo "ok   $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name" >&2
        if [ -f "$log" ]; then
            echo "---- $log" >&2
            tail -n 20 "$log" >&2
        fi
    fi
}

# raw <name> <command...>: any other check; passes when the command succeeds.
raw() {
    name=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
        echo "ok   $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name" >&2
    fi
}

scenario default
scenario smbus-only PLUMB_FAKE_I2C_FUNCS=0x0eff0008
scenario smbus-block PLUMB_FAKE_I2C_FUNCS=0x0fff8009
scenario byte-data-only PLUMB_FAKE_I2C_FUNCS=1572864
scenario nack PLUMB_FAKE_I2C_FAULT=nack
scenario nack-enxio PLUMB_FAKE_I2C_FAULT=nack PLUMB_FAKE_I2C_NACK_ERRNO=ENXIO
scenario eio PLUMB_FAKE_I2C_FAULT=eio
scenario eio-after PLUMB_FAKE_I2C_FAULT=eio-after:3
scenario open-eacces PLUMB_FAKE_I2C_OPEN_ERRNO=13
scenario open-enoent PLUMB_FAKE_I2C_OPEN_ERRNO=ENOENT
scenario address PLUMB_FAKE_I2C_ADDR=0x1d PLUMB_FAKE_I2C_NACK_ERRNO=6
scenario chip PLUMB_FAKE_I2C_DEVID=0x00 PLUMB_FAKE_I2C_XYZ=-1,32767,-32768
scenario slave-busy PLUMB_FAKE_I2C_SLAVE_ERRNO=EBUSY
scenario fork
scenario timed-fifo PLUMB_FAKE_I2C_FIFO=timed
scenario one-read-last PLUMB_FAKE_I2C_RDWR_READS=last
scenario no-log PLUMB_FAKE_I2C_LOG=
scenario adxl355 PLUMB_FAKE_I2C_CHIP=adxl355 PLUMB_FAKE_I2C_TEMP=1795 PLUMB_FAKE_I2C_MG=250,-500,1000
scenario mpu PLUMB_FAKE_I2C_CHIP=mpu6050 PLUMB_FAKE_I2C_TEMP=-521 PLUMB_FAKE_I2C_MG=250,-500,1000

# Without PLUMB_FAKE_I2C_PATH the library is inert: the path is a missing file, no log.
inactive() {
    env PLUMB_FAKE_I2C_LOG="$work/inactive.log" LD_PRELOAD="$lib" \
        "$work/selfcheck" inactive "$device" "$work/inactive.log"
}
raw inactive inactive

# Ordinary programs run normally with the library loaded, active or not.
passthrough() {
    env LD_PRELOAD="$lib" sh -c 'cat "$1" | wc -l' sh "$here/fake_i2c_dev.c" >/dev/null &&
        env PLUMB_FAKE_I2C_PATH="$device" LD_PRELOAD="$lib" cp "$here/selfcheck.c" "$work/copy.c" &&
        cmp -s "$here/selfcheck.c" "$work/copy.c"
}
raw passthrough passthrough

# An invalid variable ends the process with status 86 and names the variable on stderr. With
# several settings, the last is the one named (the others are valid on their own: the chip).
config_error() {
    status=0
    for setting in "$@"; do :; done
    env PLUMB_FAKE_I2C_PATH="$device" "$@" LD_PRELOAD="$lib" \
        "$work/selfcheck" noop "$device" "$work/noop.log" 2>"$work/stderr" || status=$?
    if [ "$status" -ne 86 ] || ! grep -q "^fake_i2c_dev: invalid ${setting%%=*}=" "$work/stderr"; then
        echo "  $setting: status $status, stderr: $(cat "$work/stderr")" >&2
        return 1
    fi
}
for setting in PLUMB_FAKE_I2C_XYZ=1,2 PLUMB_FAKE_I2C_XYZ=0,0,40000 PLUMB_FAKE_I2C_XYZ=1,2,3x \
    PLUMB_FAKE_I2C_ADDR=0x80 PLUMB_FAKE_I2C_ADDR=-1 PLUMB_FAKE_I2C_ADDR=083 PLUMB_FAKE_I2C_DEVID=256 \
    PLUMB_FAKE_I2C_FUNCS=zz PLUMB_FAKE_I2C_FUNCS=0x PLUMB_FAKE_I2C_FAULT=boom \
    PLUMB_FAKE_I2C_FAULT=eio-after: PLUMB_FAKE_I2C_FAULT=eio-after:-1 \
    PLUMB_FAKE_I2C_OPEN_ERRNO=EWHAT PLUMB_FAKE_I2C_OPEN_ERRNO=0 PLUMB_FAKE_I2C_NACK_ERRNO=x \
    PLUMB_FAKE_I2C_SLAVE_ERRNO=99999 PLUMB_FAKE_I2C_FIFO=sometimes PLUMB_FAKE_I2C_RDWR_READS=first \
    PLUMB_FAKE_I2C_CHIP=adxl999 PLUMB_FAKE_I2C_CHIP=MPU6050; do
    raw "config error $setting" config_error "$setting"
done
# Each chip takes only the variables that describe it.
for chip_setting in "PLUMB_FAKE_I2C_CHIP=adxl355 PLUMB_FAKE_I2C_XYZ=0,0,256" \
    "PLUMB_FAKE_I2C_CHIP=mpu6050 PLUMB_FAKE_I2C_FIFO=timed" "PLUMB_FAKE_I2C_CHIP=adxl345 PLUMB_FAKE_I2C_MG=0,0,1000" \
    "PLUMB_FAKE_I2C_CHIP=adxl345 PLUMB_FAKE_I2C_TEMP=100" "PLUMB_FAKE_I2C_CHIP=adxl355 PLUMB_FAKE_I2C_TEMP=4096" \
    "PLUMB_FAKE_I2C_CHIP=mpu9250 PLUMB_FAKE_I2C_TEMP=40000" "PLUMB_FAKE_I2C_CHIP=mpu6500 PLUMB_FAKE_I2C_MG=0,0,1g" \
    "PLUMB_FAKE_I2C_CHIP=adxl345 PLUMB_FAKE_I2C_ST_MG=0,0,0" "PLUMB_FAKE_I2C_CHIP=adxl355 PLUMB_FAKE_I2C_ST_MG=1,2"; do
    # shellcheck disable=SC2086 # two settings, split on purpose
    raw "config error $chip_setting" config_error $chip_setting
done
# ...but the inert library ignores them.
raw "inert ignores config" env PLUMB_FAKE_I2C_XYZ=bogus LD_PRELOAD="$lib" \
    "$work/selfcheck" noop "$device" "$work/noop.log"

echo "selfcheck: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
