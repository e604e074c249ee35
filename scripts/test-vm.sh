#!/usr/bin/env bash
# `make test-vm`: the package on a real systemd and a real kernel (docs/development/testing.md,
# 'Tests on a real systemd and kernel'). Builds (once, then cached) a Debian 12 guest with debootstrap, boots its
# own kernel under qemu-system-x86_64, and runs scripts/test-vm-guest.sh inside it: i2c-stub
# standing in for the ADXL345, then the 'Install on a Raspberry Pi' steps (docs/getting-started/raspberry-pi.md) on the
# package make deb built, one line per check.
#
#   sudo make test-vm                    # software emulation (TCG): about 3½ minutes, 4½ the first time
#   PLUMB_VM_KVM=1 make test-vm          # hardware virtualization (nested KVM can hang at boot)
#   PLUMB_VM_CACHE=/var/tmp/x            # where the guest image is cached (default /var/tmp/plumb-vm)
#   PLUMB_VM_REBUILD=1                   # build the guest image again even if one is cached
#   PLUMB_VM_BOOT_TIMEOUT=S              # seconds until the guest must be running its checks
#   PLUMB_VM_TIMEOUT=S                   # seconds for the whole guest run
#   PLUMB_VM_MIRROR=URL                  # Debian mirror for debootstrap (default deb.debian.org)
#
# Needs root (debootstrap, chroot). Only Debian's package archive is reached, at debootstrap
# time; the guest has no network card at all (its broker and agent talk over loopback), so
# nothing leaves it. The results, the guest's serial console and its journal are kept in
# .build/vm/.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
suite=bookworm
mirror=${PLUMB_VM_MIRROR:-http://deb.debian.org/debian}
cache=${PLUMB_VM_CACHE:-/var/tmp/plumb-vm}
work=$repo/.build/vm
kvm=${PLUMB_VM_KVM:-0}
if [[ $kvm == 1 ]]; then boot_timeout=${PLUMB_VM_BOOT_TIMEOUT:-120}; else boot_timeout=${PLUMB_VM_BOOT_TIMEOUT:-420}; fi
run_timeout=${PLUMB_VM_TIMEOUT:-1500}

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'test-vm: %s\n' "$*" >&2; exit 1; }
started=$(date +%s)

[[ $(id -u) -eq 0 ]] || die "needs root for debootstrap and chroot; run: sudo make test-vm"
./scripts/install-deps.sh vm
arch=$(dpkg --print-architecture)
[[ $arch == amd64 ]] || die "the guest is amd64 (qemu-system-x86_64); this machine builds $arch packages"
deb=$(ls .build/deb/plumb_*_"$arch".deb 2>/dev/null | head -n1 || true)
[[ -n $deb ]] || die "no package in .build/deb; build it with: make deb (make test-vm does)"

# The guest's packages: a booting systemd and kernel, the chip's tools, the broker, sudo and jq
# for the checks, and what the package depends on (from the .deb itself, so a new library
# brings a new image). procps has /bin/kill, the unit's ExecReload.
base_packages=(systemd systemd-sysv udev kmod dbus linux-image-amd64 initramfs-tools procps
               i2c-tools mosquitto mosquitto-clients sudo jq)
mapfile -t deb_depends < <(dpkg-deb -f "$deb" Depends | tr ',' '\n' \
    | sed -E 's/\|.*//; s/\(.*\)//; s/[[:space:]]//g' | grep -v '^$')
packages=$(printf '%s\n' "${base_packages[@]}" "${deb_depends[@]}" | sort -u | paste -sd, -)

# The guest's own settings on top of debootstrap. Part of the cache key (its text is hashed),
# so a change here builds a new image.
prepare_root() { # prepare_root ROOT
    local root=$1
    echo plumb-vm >"$root/etc/hostname"
    # A minbase root has no /etc/hosts: localhost would not resolve.
    printf '127.0.0.1\tlocalhost\n127.0.1.1\tplumb-vm\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
    printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$root/etc/fstab"
    # The console is a file on the host; a getty on it would vhangup the test's output away.
    # The apt timers would only try a network the guest does not have.
    local unit
    for unit in serial-getty@ttyS0.service getty@tty1.service apt-daily.timer apt-daily-upgrade.timer \
                e2scrub_all.timer fstrim.timer systemd-networkd-wait-online.service; do
        ln -sf /dev/null "$root/etc/systemd/system/$unit"
    done
    # The checks come on a second disk (/dev/vdb) with each run; this unit runs them once the
    # system is up. The results go to the host over a virtio-serial port (the script opens it).
    cat >"$root/etc/systemd/system/plumb-vm-test.service" <<'UNIT'
[Unit]
Description=make test-vm: the checks inside the guest
After=multi-user.target mosquitto.service

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'mkdir -p /mnt/plumb-vm && mount -o ro /dev/vdb /mnt/plumb-vm && exec /bin/bash /mnt/plumb-vm/test-vm-guest.sh'
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=infinity

[Install]
WantedBy=multi-user.target
UNIT
    mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
    ln -sf /etc/systemd/system/plumb-vm-test.service "$root/etc/systemd/system/multi-user.target.wants/"
    # The package lists debootstrap fetched are not needed in the guest (it installs a local .deb).
    rm -rf "$root"/var/cache/apt/archives/*.deb
}

key=$( { echo "$suite $mirror $packages"; declare -f prepare_root; } | sha256sum | cut -c1-16)
image_dir=$cache/$key
if [[ -n ${PLUMB_VM_REBUILD:-} ]]; then rm -rf --one-file-system "$image_dir"; fi

if [[ -f $image_dir/root.img && -f $image_dir/vmlinuz && -f $image_dir/initrd.img ]]; then
    say "guest image cached: $image_dir (key $key; PLUMB_VM_REBUILD=1 builds it again)"
else
    # Other keys are images of an older package list or recipe: no use any more. Only what this
    # script made (16 hex digits, and .root/.tmp/.debootstrap.log) goes, whatever else is there.
    mkdir -p "$cache"
    find "$cache" -mindepth 1 -maxdepth 1 -regextype posix-extended \
        -regex '.*/[0-9a-f]{16}(\.root|\.tmp|\.debootstrap\.log)?' ! -name "$key*" \
        -exec rm -rf --one-file-system {} +
    root=$cache/$key.root
    rm -rf --one-file-system "$root" "$image_dir"
    say "debootstrap $suite (minbase) with ${packages//,/ }"
    t0=$(date +%s)
    if ! debootstrap --variant=minbase --include="$packages" "$suite" "$root" "$mirror" \
            >"$cache/$key.debootstrap.log" 2>&1; then
        tail -n 20 "$cache/$key.debootstrap.log" >&2
        die "debootstrap failed; see $cache/$key.debootstrap.log"
    fi
    say "debootstrap took $(( $(date +%s) - t0 )) s"
    prepare_root "$root"
    mkdir -p "$image_dir.tmp"
    # The kernel and initrd boot directly (-kernel/-initrd): no boot loader in the image.
    cp "$(ls "$root"/boot/vmlinuz-* | sort -V | tail -n1)" "$image_dir.tmp/vmlinuz"
    cp "$(ls "$root"/boot/initrd.img-* | sort -V | tail -n1)" "$image_dir.tmp/initrd.img"
    # An ext4 image straight from the directory: no loop mount. Sparse; the run never writes
    # it (the guest's writes go to a throw-away snapshot).
    mkfs.ext4 -q -F -L plumb-vm -d "$root" "$image_dir.tmp/root.img" 3G
    mv "$image_dir.tmp" "$image_dir"
    rm -rf --one-file-system "$root" "$cache/$key.debootstrap.log"
    say "guest image built in $(( $(date +%s) - t0 )) s: $image_dir"
fi

# This run's disk: the package and the guest's script, read-only in the guest at /mnt/plumb-vm.
rm -rf "$work"
mkdir -p "$work/payload"
cp "$deb" "$work/payload/"
cp scripts/test-vm-guest.sh "$work/payload/"
cat >"$work/payload/env" <<ENV
PACKAGE=$(basename "$deb")
ARCH=$arch
ENV
mkfs.ext4 -q -F -L plumb-payload -d "$work/payload" "$work/payload.img" 64M
: >"$work/results.log"
: >"$work/journal.txt"

accel=(-accel tcg)
if [[ $kvm == 1 ]]; then
    [[ -r /dev/kvm && -w /dev/kvm ]] || die "PLUMB_VM_KVM=1 but /dev/kvm is not usable here"
    # Not -cpu host: nested, QEMU 7.2 aborts setting MSR 0x10a (arch-capabilities) with it.
    accel=(-accel kvm)
fi
say "booting the guest ($([[ $kvm == 1 ]] && echo KVM || echo 'software emulation, TCG'); boot timeout ${boot_timeout} s)"
boot_started=$(date +%s)
qemu-system-x86_64 "${accel[@]}" -m 1536 -smp 2 -nodefaults -no-reboot -display none \
    -kernel "$image_dir/vmlinuz" -initrd "$image_dir/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 earlyprintk=serial,ttyS0 panic=-1 systemd.show_status=1" \
    -drive "file=$image_dir/root.img,format=raw,if=virtio,snapshot=on" \
    -drive "file=$work/payload.img,format=raw,if=virtio" \
    -nic none -serial "file:$work/console.log" \
    -device virtio-serial-pci \
    -chardev "file,id=results,path=$work/results.log" -device virtserialport,chardev=results,name=plumb.results \
    -chardev "file,id=journal,path=$work/journal.txt" -device virtserialport,chardev=journal,name=plumb.journal \
    </dev/null >"$work/qemu.log" 2>&1 &
qemu=$!
stop_qemu() { kill "$qemu" 2>/dev/null || true; wait "$qemu" 2>/dev/null || true; }
trap stop_qemu EXIT

# Follow the results as they come: the guest's check lines are printed as they arrive.
passed=0 failed=0 shown=0 booted=0 finished=0 boot_s=
host_check() { # host_check ok|FAIL TEXT
    if [[ $1 == ok ]]; then printf 'ok   %s\n' "$2"; passed=$((passed + 1))
    else printf 'FAIL %s\n' "$2"; failed=$((failed + 1)); fi
}
while :; do
    mapfile -t lines < <(tr -d '\r' <"$work/results.log")
    while ((shown < ${#lines[@]})); do
        line=${lines[shown]}; shown=$((shown + 1))
        case $line in
            "ok   "*) passed=$((passed + 1)); printf '%s\n' "$line" ;;
            "FAIL "*) failed=$((failed + 1)); printf '%s\n' "$line" ;;
            "BOOTED "*) booted=1; boot_s=$(( $(date +%s) - boot_started ))
                        host_check ok "the guest booted ($boot_s s to its checks; ${line#BOOTED })" ;;
            "END") finished=1 ;;
            *) printf '     %s\n' "$line" ;;
        esac
    done
    ((finished)) && break
    now=$(date +%s)
    if ! kill -0 "$qemu" 2>/dev/null; then
        host_check FAIL "the guest: QEMU exited before the checks ended (see .build/vm/console.log, qemu.log)"
        sed 's/^/     | /' "$work/qemu.log"
        break
    fi
    if ((!booted && now - boot_started > boot_timeout)); then
        host_check FAIL "the guest booted: no check started within ${boot_timeout} s (boot timeout); the console's last lines:"
        if [[ -s $work/console.log ]]; then tail -n 5 "$work/console.log" | tr -d '\r' | sed 's/^/     | /'
        else echo "     | (nothing: it hung before the kernel wrote to the serial console)"; fi
        [[ $kvm == 1 ]] && echo "     (nested KVM is known to hang at boot here; the default, software emulation, does not)"
        break
    fi
    if ((now - boot_started > run_timeout)); then
        host_check FAIL "the guest's checks: not done within ${run_timeout} s (PLUMB_VM_TIMEOUT)"
        break
    fi
    sleep 1
done
# The guest sends its journal and powers off after its last line; give it a moment, then stop
# it anyway (at once when it never got there).
if ((finished)); then
    for _ in $(seq 60); do kill -0 "$qemu" 2>/dev/null || break; sleep 1; done
fi
stop_qemu
trap - EXIT

elapsed=$(( $(date +%s) - started ))
echo "$passed passed, $failed failed (boot ${boot_s:-n/a} s, guest run $(( $(date +%s) - boot_started )) s, whole test-vm ${elapsed} s)"
if ((failed)); then
    if [[ -s $work/journal.txt ]]; then
        echo "the guest's journal: .build/vm/journal.txt; its console: .build/vm/console.log"
    else
        echo "no journal came back from the guest; its console: .build/vm/console.log"
    fi
    exit 1
fi
