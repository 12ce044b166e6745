#!/bin/bash
# The systemd units of the periodic one-node check (packaging/systemd) pass `systemd-analyze verify`
# with no complaint (a bad value is only a warning there: any output fails), the service with this
# build's binary where the install writes <prefix>/bin/ibgpu; and the service's command line, run
# as systemd would run it with settings from /etc/default/ibgpu, is a healthy check of a CPU-only
# node. The installed ones are verified by tests/ci/package_test.sh and ci/fresh-machine.
source "$(dirname "$0")/lib.sh"
if ! command -v systemd-analyze >/dev/null; then
  echo "SKIP: systemd-analyze is not installed (package systemd)"
  exit 77
fi
units=$IBGPU_SOURCE_DIR/packaging/systemd
mkdir -p "$WORK/units"
sed "s|@IBGPU_BINARY@|$IBGPU|" "$units/ibgpu-check.service.in" >"$WORK/units/ibgpu-check.service"
cp "$units/ibgpu-check.timer" "$WORK/units/"
grep -q "^ExecStart=$IBGPU check " "$WORK/units/ibgpu-check.service" || fail "ExecStart does not run ibgpu check"

# verify UNIT...: systemd-analyze verify without man page lookups (the page is not installed here).
verify() { systemd-analyze verify --man=no "$@" >"$WORK/verify.out" 2>&1; }
verify "$WORK/units/ibgpu-check.service" "$WORK/units/ibgpu-check.timer" ||
  fail "systemd-analyze verify: $(cat "$WORK/verify.out")"
[ ! -s "$WORK/verify.out" ] || fail "systemd-analyze verify complains: $(cat "$WORK/verify.out")"

# The service: a oneshot, settings from /etc/default/ibgpu, the report in its state directory.
service=$WORK/units/ibgpu-check.service
for line in Type=oneshot EnvironmentFile=-/etc/default/ibgpu StateDirectory=ibgpu; do
  grep -qxF "$line" "$service" || fail "the service lacks $line"
done
grep -q '^ExecStart=.* --json /var/lib/ibgpu/check\.json' "$service" || fail "the report is not under /var/lib/ibgpu"
# shellcheck disable=SC2016  # systemd's variables, literally
grep -q '^ExecStart=.* --profile \${IBGPU_PROFILE} .*\$IBGPU_CHECK_ARGS$' "$service" ||
  fail "ExecStart does not take IBGPU_PROFILE and IBGPU_CHECK_ARGS (split) from the settings"
if grep -q '^\[Install\]' "$service"; then fail "the service has an [Install] section: the timer starts it"; fi
# The check opens GPU and RDMA device nodes and reads the kernel log: no setting may close /dev
# (ProtectClock= implies DeviceAllow=, which makes every other device unreachable) or the log.
bad=$(grep -E '^(PrivateDevices|DevicePolicy|DeviceAllow|ProtectClock|ProtectKernelLogs)=' "$service" || true)
[ -z "$bad" ] || fail "the service shuts out devices or the kernel log: $bad"

# The command line as systemd would run it, with IBGPU_PROFILE=cpu and IBGPU_CHECK_ARGS="--skip
# gpu.cuda" from /etc/default/ibgpu (the report where this test can write, sysfs from a tree with no
# devices): ibgpu takes every option, and a CPU-only node is healthy, exit 0.
read -r -a words <<<"$(sed -n 's/^ExecStart=//p' "$service")"
argv=()
for word in "${words[@]}"; do
  case $word in
    "\${IBGPU_PROFILE}") argv+=(cpu) ;;
    "\$IBGPU_CHECK_ARGS") argv+=(--skip gpu.cuda) ;;
    /var/lib/ibgpu/check.json) argv+=("$WORK/check.json") ;;
    *) argv+=("$word") ;;
  esac
done
set +e
(cd "$WORK" && env -u IBGPU_PROFILE_DIR IBGPU_HOSTNAME=n1 "${argv[@]}" --sysfs-root "$DATA/sysfs/empty" >"$WORK/run.out" 2>&1)
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "the service's command (${argv[*]}) exited $rc: $(tail -5 "$WORK/run.out")"
[ -s "$WORK/check.json" ] || fail "the service's command wrote no report"

# The checks can fail: a unit systemd cannot run is reported.
sed 's|^ExecStart=[^ ]*|ExecStart=/nonexistent/ibgpu|' "$service" >"$WORK/units/ibgpu-broken.service"
if verify "$WORK/units/ibgpu-broken.service"; then fail "verify passed a service whose binary does not exist"; fi
sed 's|^Type=oneshot|Type=oneshoot|' "$service" >"$WORK/units/ibgpu-typo.service"
verify "$WORK/units/ibgpu-typo.service" || true
[ -s "$WORK/verify.out" ] || fail "verify said nothing of Type=oneshoot"
echo "systemd units: ok"
