#!/usr/bin/env bash
# Builds the Debian package plumb_<version>_<arch>.deb from this checkout (make deb).
#
#   scripts/build-deb.sh [OUTDIR]        default OUTDIR: .build/deb
#
# It builds the release binary, stages the package tree in OUTDIR/root (check-deploy verifies
# the unit there), derives Depends with dpkg-shlibdeps and packs it with dpkg-deb. No root
# needed: dpkg-deb --root-owner-group makes every file root's.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
out=${1:-.build/deb}
SWIFT=${SWIFT:-swift}
# The maintainer recorded in the package; a placeholder address unless the builder names one.
MAINTAINER=${DEB_MAINTAINER:-The Plumb developers <plumb@example.org>}

say() { printf 'build-deb: %s\n' "$*" >&2; }
fail() { printf 'build-deb: error: %s\n' "$*" >&2; exit 1; }

for tool in dpkg-deb dpkg-shlibdeps strip readelf gzip; do
    command -v "$tool" >/dev/null || fail "$tool is missing; run scripts/install-deps.sh deb (or: make deb)"
done
command -v "$SWIFT" >/dev/null || fail "no Swift toolchain on PATH; see docs/getting-started/raspberry-pi.md, 'Install on a Raspberry Pi'"

# The version is the one `plumb --version` prints: Plumb.version in Sources/PlumbCLI/Plumb.swift.
version=$(sed -n 's/^ *public static let version = "\([^"]*\)".*/\1/p' Sources/PlumbCLI/Plumb.swift)
[[ -n $version ]] || fail "no 'public static let version = \"…\"' in Sources/PlumbCLI/Plumb.swift"
# A native package: a Debian revision (-N) would make it a non-native one with other doc rules.
[[ $version =~ ^[0-9][A-Za-z0-9.+~]*$ ]] || fail "version '$version' is not a native Debian version"
changelog_version=$(sed -n '1s/^plumb (\([^)]*\)).*/\1/p' deploy/debian/changelog)
[[ $changelog_version == "$version" ]] || fail "deploy/debian/changelog starts with version \
'${changelog_version:-?}', but plumb is $version: add an entry for $version at its top"
arch=$(dpkg --print-architecture)

# The Swift runtime linked in, so the Pi needs no toolchain; no $ORIGIN runpath (a packaged
# binary looks for libraries in the system's paths only); full RELRO, like Debian's own builds.
swift_flags=(-c release --product plumb --static-swift-stdlib --disable-local-rpath
             -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now)
say "building plumb $version (release) for $arch"
"$SWIFT" build "${swift_flags[@]}"
bin="$("$SWIFT" build "${swift_flags[@]}" --show-bin-path)/plumb"
[[ -x $bin ]] || fail "the build did not produce $bin"
built_version=$("$bin" --version)
[[ $built_version == "plumb $version" ]] || fail "$bin --version says '$built_version', expected 'plumb $version'"

root="$out/root"
rm -rf "$root"
install -d -m 0755 "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/etc/plumb" \
    "$root/usr/share/doc/plumb" "$root/usr/share/man/man1"
# As dh_strip does for an executable: debug info and symbols out (27 MB to a few).
install -m 0755 "$bin" "$root/usr/bin/plumb"
strip --remove-section=.comment --remove-section=.note "$root/usr/bin/plumb"
install -m 0644 deploy/plumb.service "$root/lib/systemd/system/plumb.service"
install -m 0644 config/plumb.yaml "$root/etc/plumb/plumb.yaml"
grep -q '^state_dir: /var/lib/plumb$' "$root/etc/plumb/plumb.yaml" \
    || fail "config/plumb.yaml must say state_dir: /var/lib/plumb, the unit's StateDirectory"
grep -q '^ExecStart=/usr/bin/plumb run --config /etc/plumb/plumb.yaml$' deploy/plumb.service \
    || fail "deploy/plumb.service must start /usr/bin/plumb with --config /etc/plumb/plumb.yaml"
install -m 0644 deploy/debian/copyright "$root/usr/share/doc/plumb/copyright"
# -n: no name or time stamp inside, so the same sources give the same package.
gzip -9n < deploy/debian/changelog > "$root/usr/share/doc/plumb/changelog.gz"
gzip -9n < README.md > "$root/usr/share/doc/plumb/README.md.gz"
# The docs tree beside it, in the layout the README links (docs/guides/temperature.md →
# docs/guides/temperature.md.gz); its screenshots stay in the repository.
(cd docs && find . -name '*.md' | sort) | while read -r page; do
    page=${page#./}
    install -d -m 0755 "$root/usr/share/doc/plumb/docs/$(dirname "$page")"
    gzip -9n < "docs/$page" > "$root/usr/share/doc/plumb/docs/$page.gz"
    chmod 0644 "$root/usr/share/doc/plumb/docs/$page.gz"
done
gzip -9n < CHANGELOG.md > "$root/usr/share/doc/plumb/CHANGELOG.md.gz"
# The shell completions make docs writes from the command line's own specs.
install -D -m 0644 deploy/completions/plumb.bash "$root/usr/share/bash-completion/completions/plumb"
install -D -m 0644 deploy/completions/_plumb "$root/usr/share/zsh/vendor-completions/_plumb"
# The man pages make docs writes, dated by the changelog's latest entry so a build is reproducible.
page_date=$(date -u -d "$(sed -n 's/^ -- .*>  //p' deploy/debian/changelog | head -n 1)" +%Y-%m-%d) \
    || fail "deploy/debian/changelog's first entry has no date line ' -- NAME <EMAIL>  DATE'"
install -d -m 0755 "$root/usr/share/man/man5"
sed "s/@VERSION@/$version/g; s/@DATE@/$page_date/g" deploy/debian/plumb.1 | gzip -9n > "$root/usr/share/man/man1/plumb.1.gz"
sed "s/@VERSION@/$version/g; s/@DATE@/$page_date/g" deploy/debian/plumb.yaml.5 \
    | gzip -9n > "$root/usr/share/man/man5/plumb.yaml.5.gz"
chmod 0644 "$root"/usr/share/doc/plumb/*.gz "$root/usr/share/doc/plumb/copyright" "$root/usr/share/man/man1/plumb.1.gz" \
    "$root/usr/share/man/man5/plumb.yaml.5.gz"

# Depends from the libraries the binary really links (libmosquitto1, libyaml-0-2, libjansson4, libsystemd0,
# libc6, …) with the minimum versions their shlibs/symbols files give. dpkg-shlibdeps wants a
# source tree with debian/control, so it runs in a scratch one.
shlibs_tree=$(mktemp -d)
trap 'rm -rf "$shlibs_tree"' EXIT
mkdir "$shlibs_tree/debian"
printf 'Source: plumb\n\nPackage: plumb\nArchitecture: any\n' > "$shlibs_tree/debian/control"
abs_bin=$(cd "$root/usr/bin" && pwd)/plumb
shlibs=$(cd "$shlibs_tree" && dpkg-shlibdeps -O -e"$abs_bin") \
    || fail "dpkg-shlibdeps failed (is each library the binary links from an installed package?)"
depends=${shlibs#shlibs:Depends=}
# Packed relative relocations (Package.swift) need glibc 2.36's loader, a need libc6's symbols
# file does not record (no GLIBC_ABI_DT_RELR entry): raise libc6's minimum to it.
libc_min=$(sed -n 's/.*libc6 (>= \([^)]*\)).*/\1/p' <<< "$depends")
if readelf -V "$abs_bin" | grep -q GLIBC_ABI_DT_RELR && [[ -n $libc_min ]] \
        && dpkg --compare-versions "$libc_min" lt 2.36; then
    depends=${depends/"libc6 (>= $libc_min)"/"libc6 (>= 2.36)"}
fi
[[ $depends == *libmosquitto* && $depends == *libyaml* && $depends == *libjansson* && $depends == *libsystemd* ]] \
    || fail "dpkg-shlibdeps found '$depends', without libmosquitto, libyaml, libjansson and libsystemd"
# postinst/postrm use groupadd, useradd, usermod, userdel and groupdel; the bubble picture's text
# is set in DejaVu Sans, a file the agent opens rather than a library it links.
depends="$depends, passwd, fonts-dejavu-core"

installed_size=$(du -s -k --apparent-size --exclude=DEBIAN "$root" | cut -f1)
sed -e "s#@VERSION@#$version#" -e "s#@ARCH@#$arch#" -e "s#@MAINTAINER@#$MAINTAINER#" \
    -e "s#@INSTALLED_SIZE@#$installed_size#" -e "s#@DEPENDS@#$depends#" \
    deploy/debian/control.in > "$root/DEBIAN/control"
install -m 0644 deploy/debian/conffiles "$root/DEBIAN/conffiles"
install -m 0755 deploy/debian/postinst deploy/debian/prerm deploy/debian/postrm "$root/DEBIAN/"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z \
    | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"

deb="$out/plumb_${version}_${arch}.deb"
rm -f "$out"/plumb_*.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
say "built $deb ($(du -h "$deb" | cut -f1)); Depends: $depends"
printf '%s\n' "$deb"
