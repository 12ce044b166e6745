#!/bin/bash
# The Debian package as a node gets it: built by CPack from this build, its
# dependencies named, its files where docs/operations.md says, and what it installs
# runs from where it lands: `ibgpu --version`, a one-host check on the `cpu`
# profile found beside the binary (healthy, exit 0), the Slurm recipes; its
# maintainer, copyright file, man page, bash completion, systemd units and the
# /etc/default/ibgpu conffile.
# Unpacked into a temporary root with dpkg-deb, not installed on this host;
# ci/fresh-machine installs it with apt in a new Debian 12 root.
#   package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
if ! command -v dpkg-deb >/dev/null || ! command -v dpkg-shlibdeps >/dev/null || ! command -v file >/dev/null; then
  echo "SKIP: dpkg-deb, dpkg-shlibdeps (dpkg-dev) and file are needed to build the package (ci/setup installs them)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack"; }
debs=("$work"/out/ibgpu_*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then fail "one ibgpu_*.deb expected, got: ${debs[*]}"; fi
deb=${debs[0]}

depends=$(dpkg-deb -f "$deb" Depends)
for dep in openmpi-bin libibverbs1 libopenmpi3 libtomlplusplus3; do
  [[ ", $depends," == *", $dep "* || ", $depends," == *", $dep,"* ]] || fail "Depends lacks $dep: $depends"
done
[ "$(dpkg-deb -f "$deb" Package)" = ibgpu ] || fail "package name"

dpkg-deb -x "$deb" "$work/root"
for f in usr/bin/ibgpu usr/libexec/ibgpu/healthcheck.sh usr/libexec/ibgpu/burn-in.sbatch; do
  [ -x "$work/root/$f" ] || fail "$f missing or not executable"
done
for f in usr/share/ibgpu/schema/report.schema.json usr/share/doc/ibgpu/README.md \
         usr/share/ibgpu/monitoring/ibgpu.rules.yml usr/share/ibgpu/monitoring/ibgpu.dashboard.json; do
  [ -f "$work/root/$f" ] || fail "$f missing"
done
# Every page of docs/ beside the README, as in the source (the README links docs/NAME.md).
for page in "$source"/docs/*.md; do
  f=usr/share/doc/ibgpu/docs/$(basename "$page")
  cmp -s "$page" "$work/root/$f" || fail "$f missing or not the source's docs/$(basename "$page")"
done
for p in "$source"/profiles/*.toml; do
  cmp -s "$p" "$work/root/usr/share/ibgpu/profiles/$(basename "$p")" || fail "profile $(basename "$p") not packaged as is"
done
if readelf -S "$work/root/usr/bin/ibgpu" | grep -q '\.debug_info'; then
  fail "the packaged binary keeps its debug info (CPACK_STRIP_FILES)"
fi

"$work/root/usr/bin/ibgpu" --version | grep -q '^ibgpu ' || fail "--version of the packaged binary"
# --profile NAME is found beside the binary (<bin>/../share/ibgpu/profiles), not in the source tree.
set +e
(cd "$work" && env -u IBGPU_PROFILE_DIR IBGPU_HOSTNAME=n1 "$work/root/usr/bin/ibgpu" check --profile cpu \
  --sysfs-root "$source/tests/data/sysfs/empty" --json "$work/check.json" >"$work/check.txt" 2>&1)
rc=$?
set -e
[ "$rc" -eq 0 ] || { cat "$work/check.txt"; fail "one-host check with the packaged cpu profile: exit $rc, not 0"; }
# The report file is compact JSON (one line): "source":"..." without a space.
grep -qF "\"source\":\"$work/root/usr/bin/../share/ibgpu/profiles/cpu.toml\"" "$work/check.json" ||
  fail "the cpu profile was not read from the package: $(grep -o '"source":"[^"]*"' "$work/check.json")"
bash -n "$work/root/usr/libexec/ibgpu/healthcheck.sh" || fail "healthcheck.sh does not parse"
bin=$work/root/usr/bin/ibgpu

# A named maintainer, not a placeholder host.
maintainer=$(dpkg-deb -f "$deb" Maintainer)
[[ $maintainer =~ ^[^\<]+\ \<[^@\>]+@[^\>]+\>$ ]] || fail "Maintainer is not 'Name <email>': $maintainer"
[[ $maintainer != *localhost* ]] || fail "Maintainer names localhost: $maintainer"

# The copyright file in Debian's machine-readable format, with the licence's text.
copyright=$work/root/usr/share/doc/ibgpu/copyright
[ -f "$copyright" ] || fail "usr/share/doc/ibgpu/copyright missing"
for line in "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" "Upstream-Name: ibgpu" \
            "Files: *" "License: Expat"; do
  grep -qxF "$line" "$copyright" || fail "copyright lacks '$line'"
done
grep -qE '^Copyright: [0-9]{4} .' "$copyright" || fail "copyright lacks a Copyright: line"
grep -qxF " Permission is hereby granted, free of charge, to any person obtaining a copy" "$copyright" ||
  fail "copyright lacks the licence's text"

# The man page: help2man's NAME, and every command with its own help (the commands read from the
# packaged binary by the build's generator, and those this test knows of).
manpage=$work/root/usr/share/man/man1/ibgpu.1.gz
[ -f "$manpage" ] || fail "usr/share/man/man1/ibgpu.1.gz missing"
zcat "$manpage" >"$work/ibgpu.1" || fail "the man page is not gzip"
grep -qx '\.SH NAME' "$work/ibgpu.1" || fail "the man page has no NAME section"
grep -q '^ibgpu \\- check GPU nodes' "$work/ibgpu.1" || fail "NAME is not 'ibgpu - check GPU nodes ...'"
mapfile -t commands < <(bash "$source/packaging/from_help.sh" commands "$bin")
for cmd in "${commands[@]}" check burn-in inventory probe "probe bw" "probe lat" "probe list" allreduce report simulate explain; do
  grep -qxF ".SS \"ibgpu $cmd\"" "$work/ibgpu.1" || fail "the man page lacks the help of ibgpu $cmd"
done
if command -v man >/dev/null; then
  MANWIDTH=100 man --warnings -l "$manpage" >"$work/man.txt" 2>"$work/man.err" || fail "man -l: $(cat "$work/man.err")"
  [ ! -s "$work/man.err" ] || fail "man -l warns: $(head -5 "$work/man.err")"
  grep -q '^SUBCOMMANDS' "$work/man.txt" || fail "man -l renders no SUBCOMMANDS section"
  grep -q 'ibgpu check' "$work/man.txt" || fail "man -l renders no 'ibgpu check'"
else
  echo "note: no man here: the page is checked as text only"
fi

# The bash completion, sourced in a bash of its own: ibgpu ch<TAB> is check, and --profile offers
# the profiles beside the packaged binary.
completion=$work/root/usr/share/bash-completion/completions/ibgpu
[ -f "$completion" ] || fail "usr/share/bash-completion/completions/ibgpu missing"
completes() {
  # shellcheck disable=SC2016  # expanded by that bash
  env -u IBGPU_PROFILE_DIR bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ibgpu
    printf "%s\n" "${COMPREPLY[@]}"' completes "$completion" "$@"
}
[ "$(completes ibgpu ch)" = check ] || fail "ibgpu ch<TAB> completes '$(completes ibgpu ch | xargs)', not check"
[ "$(completes ibgpu probe li)" = list ] || fail "ibgpu probe li<TAB> completes '$(completes ibgpu probe li | xargs)'"
[ "$(completes "$bin" check --profile cp)" = cpu ] || fail "--profile cp<TAB>: '$(completes "$bin" check --profile cp | xargs)'"

# The systemd units: the service runs the packaged binary; both pass systemd-analyze verify (the
# binary's path is rewritten to where it was unpacked, since it is not installed here).
units=$work/root/usr/lib/systemd/system
for u in ibgpu-check.service ibgpu-check.timer; do [ -f "$units/$u" ] || fail "usr/lib/systemd/system/$u missing"; done
grep -q '^ExecStart=/usr/bin/ibgpu check ' "$units/ibgpu-check.service" || fail "the service does not run /usr/bin/ibgpu check"
if command -v systemd-analyze >/dev/null; then
  mkdir "$work/units"
  sed "s|^ExecStart=/usr/bin/ibgpu |ExecStart=$bin |" "$units/ibgpu-check.service" >"$work/units/ibgpu-check.service"
  cp "$units/ibgpu-check.timer" "$work/units/"
  systemd-analyze verify --man=no "$work/units/ibgpu-check.service" "$work/units/ibgpu-check.timer" >"$work/verify.txt" 2>&1 ||
    fail "systemd-analyze verify: $(cat "$work/verify.txt")"
  [ ! -s "$work/verify.txt" ] || fail "systemd-analyze verify complains: $(cat "$work/verify.txt")"
else
  echo "note: no systemd-analyze here: the units are not verified"
fi

# /etc/default/ibgpu: installed, and a conffile, so an edited one survives upgrades.
[ -f "$work/root/etc/default/ibgpu" ] || fail "etc/default/ibgpu missing"
cmp -s "$source/packaging/default/ibgpu" "$work/root/etc/default/ibgpu" || fail "etc/default/ibgpu is not packaging/default/ibgpu"
dpkg-deb -e "$deb" "$work/control"
[ -f "$work/control/conffiles" ] || fail "the package has no conffiles"
grep -qxF /etc/default/ibgpu "$work/control/conffiles" || fail "conffiles lacks /etc/default/ibgpu: $(cat "$work/control/conffiles")"
# And dpkg keeps an edited one: the package installed into an empty root of its own (dpkg --root;
# its dependencies are not there, and it has no maintainer scripts), the file edited, the same
# package installed again.
if [ "$(id -u)" -eq 0 ]; then
  dpkgroot=$work/dpkg-root
  mkdir -p "$dpkgroot/var/lib/dpkg/updates" "$dpkgroot/var/lib/dpkg/info"
  touch "$dpkgroot/var/lib/dpkg/status"
  dpkg_i() { dpkg --root="$dpkgroot" --force-depends --force-script-chrootless --force-confold -i "$deb" >"$work/dpkg.log" 2>&1; }
  dpkg_i || fail "dpkg -i into an empty root: $(tail -5 "$work/dpkg.log")"
  sed -i 's/^#IBGPU_PROFILE=.*/IBGPU_PROFILE=cpu/' "$dpkgroot/etc/default/ibgpu"
  grep -qx IBGPU_PROFILE=cpu "$dpkgroot/etc/default/ibgpu" || fail "could not edit the installed /etc/default/ibgpu"
  dpkg_i || fail "dpkg -i again: $(tail -5 "$work/dpkg.log")"
  grep -qx IBGPU_PROFILE=cpu "$dpkgroot/etc/default/ibgpu" || fail "installing the package again replaced the edited /etc/default/ibgpu"
else
  echo "note: not root: dpkg's keeping of an edited /etc/default/ibgpu is not tried here (ci/fresh-machine does)"
fi
echo "package: ok ($(basename "$deb"), $(du -k "$deb" | cut -f1) KiB)"
