#!/usr/bin/env bash
# Tests the Debian package on this machine (make test-deb): lintian, then install, upgrade (a
# modified conffile must survive), remove and purge with dpkg, checking the files, the plumb
# user and its groups after each step, and that no maintainer script failed.
#
#   scripts/test-deb.sh [PACKAGE.deb]     default: the one make deb put in .build/deb
#
# It needs root (dpkg -i, useradd), and leaves the machine as it found it: the package purged,
# and the i2c group removed again if the install created it. Where systemd isn't running (a
# container, CI) the maintainer scripts must skip starting the service and still succeed.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

if [[ $(id -u) -ne 0 ]]; then
    echo "test-deb: skipped: installing a package needs root; run: sudo make test-deb"
    exit 0
fi

arch=$(dpkg --print-architecture)
deb=${1:-$(ls .build/deb/plumb_*_"$arch".deb 2>/dev/null | head -n1 || true)}
[[ -n $deb && -f $deb ]] || { echo "test-deb: error: no package; build it with: make deb" >&2; exit 1; }
version=$(dpkg-deb --field "$deb" Version)

passed=0 failed=0
ok() { passed=$((passed + 1)); printf '  ok    %s\n' "$*"; }
bad() { failed=$((failed + 1)); printf '  FAIL  %s\n' "$*"; }
check() { # check DESCRIPTION COMMAND...
    local what=$1; shift
    if "$@" >/dev/null 2>&1; then ok "$what"; else bad "$what"; fi
}
step() { printf '== %s\n' "$*"; }
fail_now() { printf 'test-deb: error: %s\n' "$*" >&2; exit 1; }

# This machine must not have Plumb already: the test would purge a real installation.
if dpkg-query --show --showformat='${db:Status-Status}' plumb 2>/dev/null | grep -qv '^not-installed$'; then
    fail_now "the package plumb is already on this machine; test-deb installs and purges it. Remove it first: dpkg --purge plumb"
fi
if getent passwd plumb >/dev/null; then
    fail_now "a user plumb exists without the package (deploy/install.sh?); test-deb would delete it. Remove it first: userdel plumb"
fi

i2c_existed=no
getent group i2c >/dev/null && i2c_existed=yes
work=$(mktemp -d)
cleanup() {
    # A failed run must not leave the package or its user behind.
    if dpkg-query --show --showformat='${db:Status-Status}' plumb 2>/dev/null | grep -qv '^not-installed$'; then
        dpkg --purge plumb >/dev/null 2>&1 || true
    fi
    if [[ $i2c_existed == no ]] && getent group i2c >/dev/null; then groupdel i2c || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# dpkg waits for no one: if another apt or dpkg holds the lock (a colleague's install-deps),
# retry for up to two minutes instead of failing.
dpkg_run() { # dpkg_run LOGNAME ARGS...
    local log="$work/$1.log"; shift
    local tries=0 rc
    while :; do
        rc=0
        dpkg "$@" </dev/null >"$log" 2>&1 || rc=$?
        if ((rc != 0)) && grep -q 'lock' "$log" && ((tries < 60)); then
            tries=$((tries + 1)); sleep 2; continue
        fi
        sed 's/^/    | /' "$log"
        return "$rc"
    done
}
# Fails the step when dpkg or a maintainer script reported an error or a plumb: warning.
dpkg_step() { # dpkg_step DESCRIPTION LOGNAME ARGS...
    local what=$1 name=$2; shift 2
    local t0=$SECONDS
    if dpkg_run "$name" "$@"; then ok "$what (dpkg exit 0, $((SECONDS - t0)) s)"; else bad "$what: dpkg failed"; fi
    if grep -Eq 'subprocess .* returned error|maintainer script|^plumb: ' "$work/$name.log"; then
        bad "$what: a maintainer script failed or warned (see above)"
    else
        ok "$what: maintainer scripts ran clean"
    fi
}
status() { dpkg-query --show --showformat='${db:Status-Abbrev}' plumb 2>/dev/null | tr -d ' '; }
in_group() { id -nG "$1" | tr ' ' '\n' | grep -qx "$2"; }
wants=/etc/systemd/system/multi-user.target.wants/plumb.service

start=$SECONDS
step "lintian $deb"
# Not as root (lintian warns about that); errors fail the test, warnings and notes are shown.
cp "$deb" "$work/" && chmod 0755 "$work"
if runuser -u nobody -- env HOME="$work" lintian --fail-on error --display-info "$work/$(basename "$deb")" \
    >"$work/lintian.log" 2>&1; then
    ok "lintian: no errors, $(grep -c '^W: ' "$work/lintian.log" || true) warnings, $(grep -c '^I: ' "$work/lintian.log" || true) notes"
else
    bad "lintian reports errors"
fi
grep -v 'spelling-error-in-binary' "$work/lintian.log" | sed 's/^/    | /' || true
# The Swift runtime's own strings ("overriden", "matchign" …) are linked in; not ours to fix.
spelling=$(grep -c 'spelling-error-in-binary' "$work/lintian.log" || true)
((spelling == 0)) || echo "    | ($spelling spelling-error-in-binary notes on the Swift runtime's strings left out)"

step "install $deb"
[[ $i2c_existed == yes ]] && echo "    (the group i2c exists already)"
dpkg_step "dpkg -i" install -i "$deb"
check "status is installed (ii)" test "$(status)" = ii
check "/usr/bin/plumb is an executable" test -x /usr/bin/plumb -a -f /usr/bin/plumb
check "/usr/bin/plumb is stripped (no .symtab)" bash -c "! readelf -S /usr/bin/plumb | grep -q '\.symtab'"
check "/usr/bin/plumb --version says plumb $version" test "$(/usr/bin/plumb --version)" = "plumb $version"
check "the unit is /lib/systemd/system/plumb.service" test -f /lib/systemd/system/plumb.service
check "the unit starts /usr/bin/plumb" grep -qx 'ExecStart=/usr/bin/plumb run --config /etc/plumb/plumb.yaml' /lib/systemd/system/plumb.service
check "/etc/plumb/plumb.yaml is installed" test -f /etc/plumb/plumb.yaml
conffiles=$(dpkg-query --show --showformat='${Conffiles}\n' plumb)
check "/etc/plumb/plumb.yaml is a conffile" grep -q '^ */etc/plumb/plumb.yaml [0-9a-f]\{32\}$' <<<"$conffiles"
check "the man pages plumb(1) and plumb.yaml(5) are installed" test -f /usr/share/man/man1/plumb.1.gz -a -f /usr/share/man/man5/plumb.yaml.5.gz
check "plumb.yaml(5) names every section and is dated" bash -c 'page=$(zcat /usr/share/man/man5/plumb.yaml.5.gz); for s in MQTT DEVICE SENSOR SERVICE CONTROL STATE_DIR LOG_LEVEL LEVEL VIBRATION; do grep -q "^.SH \"$s\"" <<<"$page" || exit 1; done; ! grep -q "@DATE@\|@VERSION@" <<<"$page"'
check "copyright and changelog.gz in /usr/share/doc/plumb" test -f /usr/share/doc/plumb/copyright -a -f /usr/share/doc/plumb/changelog.gz
check "the bash and zsh completions" test -f /usr/share/bash-completion/completions/plumb -a -f /usr/share/zsh/vendor-completions/_plumb
check "the docs tree and the changelog in /usr/share/doc/plumb" test -f /usr/share/doc/plumb/docs/guides/temperature.md.gz -a -f /usr/share/doc/plumb/docs/hardware/adxl345.md.gz -a -f /usr/share/doc/plumb/docs/reference/mqtt.md.gz -a -f /usr/share/doc/plumb/CHANGELOG.md.gz
passwd_line=$(getent passwd plumb || true)
check "the user plumb exists" test -n "$passwd_line"
IFS=: read -r _ _ uid _ _ home shell <<<"$passwd_line"
check "plumb is a system user (uid $uid)" test "${uid:-99999}" -lt 1000
check "plumb's home is /var/lib/plumb" test "$home" = /var/lib/plumb
check "plumb cannot log in ($shell)" test "$shell" = /usr/sbin/nologin
check "no home was created (systemd makes /var/lib/plumb)" test ! -e /var/lib/plumb
check "plumb's primary group is plumb" test "$(id -gn plumb)" = plumb
check "plumb is in the group i2c" in_group plumb i2c
check "the plumb user can run plumb" runuser -u plumb -- /usr/bin/plumb --version
check "the first install says how to join the group plumb (a note, not a warning)" \
    grep -q '^plumb note: join its group: sudo usermod -aG plumb \$USER' "$work/install.log"
check "the unit is enabled (multi-user.target.wants)" test "$(readlink "$wants")" = /lib/systemd/system/plumb.service
# Here, where the paths in the unit exist, verify can check it as systemd would load it.
if systemd-analyze verify /lib/systemd/system/plumb.service >"$work/verify.log" 2>&1; then
    ok "systemd-analyze verify of the installed unit: clean"
else
    bad "systemd-analyze verify of the installed unit"
fi
sed 's/^/    | /' "$work/verify.log"

step "upgrade to a newer version with a modified conffile"
echo "# test-deb: a local change that an upgrade must keep" >>/etc/plumb/plumb.yaml
# The same payload as version ${version}+testdeb1, so dpkg runs a real upgrade.
dpkg-deb --raw-extract "$deb" "$work/up"
sed -i "s/^Version: .*/Version: ${version}+testdeb1/" "$work/up/DEBIAN/control"
dpkg-deb --root-owner-group --build "$work/up" "$work/plumb_up.deb" >/dev/null
# A state file, as the running service would leave it, for purge to delete later.
install -d -o plumb -g plumb -m 0750 /var/lib/plumb
install -o plumb -g plumb -m 0640 /dev/null /var/lib/plumb/settings.json
dpkg_step "dpkg -i (upgrade)" upgrade -i "$work/plumb_up.deb"
check "version is now ${version}+testdeb1" test "$(dpkg-query --show --showformat='${Version}' plumb)" = "${version}+testdeb1"
check "the modified conffile is kept" grep -q '^# test-deb: a local change' /etc/plumb/plumb.yaml
check "no .dpkg-new/.dpkg-dist beside it" bash -c '! ls /etc/plumb/*.dpkg-* 2>/dev/null | grep -q .'
check "plumb is still in the group i2c" in_group plumb i2c
check "an upgrade does not repeat the note on the group" bash -c "! grep -q '^plumb note:' '$work/upgrade.log'"
check "the unit is still enabled" test -L "$wants"
dpkg_step "dpkg -i (reinstall the same version)" reinstall -i "$work/plumb_up.deb"
check "the modified conffile is still kept" grep -q '^# test-deb: a local change' /etc/plumb/plumb.yaml

step "remove (keeps configuration)"
dpkg_step "dpkg -r" remove -r plumb
check "status is config-files (rc)" test "$(status)" = rc
check "/usr/bin/plumb is gone" test ! -e /usr/bin/plumb
check "the unit file is gone" test ! -e /lib/systemd/system/plumb.service
check "the conffile stays until purge" test -f /etc/plumb/plumb.yaml
check "the user plumb stays until purge" getent passwd plumb
check "the unit is masked while removed" test "$(readlink /etc/systemd/system/plumb.service)" = /dev/null

step "purge"
dpkg_step "dpkg --purge" purge --purge plumb
check "the package is gone" bash -c "! dpkg-query --show plumb 2>/dev/null | grep -q ."
check "the user plumb is gone" bash -c "! getent passwd plumb"
check "the group plumb is gone" bash -c "! getent group plumb"
check "the group i2c is kept" getent group i2c
check "/var/lib/plumb is gone" test ! -e /var/lib/plumb
check "/etc/plumb is gone" test ! -e /etc/plumb
check "the enable symlink is gone" test ! -e "$wants" -a ! -L "$wants"
check "the mask is gone" test ! -L /etc/systemd/system/plumb.service
check "deb-systemd-helper's state is gone" test ! -e /var/lib/systemd/deb-systemd-helper-enabled/plumb.service.dsh-also
check "no file of the package is left" test ! -e /usr/share/doc/plumb -a ! -e /usr/share/man/man1/plumb.1.gz -a ! -e /usr/share/man/man5/plumb.yaml.5.gz -a ! -e /usr/share/bash-completion/completions/plumb -a ! -e /usr/share/zsh/vendor-completions/_plumb

echo "test-deb: $((SECONDS - start)) s"
echo "test-deb: $passed passed, $failed failed"
((failed == 0))
