#!/bin/bash
# ci/slurm/healthcheck.sh passes IBGPU_CHECK_ARGS to `ibgpu check`, split at spaces, read from the
# packaged /etc/default/ibgpu (packaging/default/ibgpu with that line uncommented); a value in the
# environment wins over the file. Slurm and ibgpu are stand-ins here: scontrol shows the node idle,
# the ibgpu stand-in records its arguments and admits the node.
source "$(dirname "$0")/lib.sh"
mkdir -p "$WORK/bin"
cat >"$WORK/bin/scontrol" <<'EOF'
#!/bin/sh
echo "NodeName=n1 Arch=x86_64 State=IDLE Reason=(null)"
EOF
cat >"$WORK/bin/ibgpu" <<'EOF'
#!/bin/bash
# check: one argument per line in $ARGS_LOG, and a report where --json says; report: admit n1.
if [ "$1" = check ]; then
  printf '%s\n' "$@" >"$ARGS_LOG"
  while [ $# -gt 0 ]; do if [ "$1" = --json ]; then echo '{}' >"$2"; fi; shift; done
  exit 0
fi
printf 'n1\tadmit\thealthy\t-\n'
EOF
chmod +x "$WORK/bin/scontrol" "$WORK/bin/ibgpu"
sed 's/^#IBGPU_CHECK_ARGS=/IBGPU_CHECK_ARGS=/' "$IBGPU_SOURCE_DIR/packaging/default/ibgpu" >"$WORK/default"
grep -qx 'IBGPU_CHECK_ARGS="--skip gpu.cuda"' "$WORK/default" || fail "packaging/default/ibgpu has no IBGPU_CHECK_ARGS line to uncomment"
printf 'IBGPU=%s\nIBGPU_HC_REPORT=%s\n' "$WORK/bin/ibgpu" "$WORK/report.json" >>"$WORK/default"

# healthcheck [VAR=VALUE...]: the script with the settings file, PATH to the stand-ins; sets $rc.
healthcheck() {
  set +e
  env -u IBGPU_CHECK_ARGS -u IBGPU "$@" PATH="$WORK/bin:$PATH" IBGPU_CONFIG="$WORK/default" SLURMD_NODENAME=n1 \
    ARGS_LOG="$WORK/args" bash "$IBGPU_SOURCE_DIR/ci/slurm/healthcheck.sh" >"$WORK/out" 2>"$WORK/err"
  rc=$?
  set -e
}
healthcheck
[ "$rc" -eq 0 ] || fail "the health check exited $rc: $(cat "$WORK/err")"
head -n1 "$WORK/args" | grep -qx check || fail "ibgpu was not run as ibgpu check: $(xargs <"$WORK/args")"
# The two words of the value arrive as two arguments, after the script's own.
tail -n2 "$WORK/args" | paste -sd'|' | grep -qx -- '--skip|gpu.cuda' ||
  fail "IBGPU_CHECK_ARGS from the file did not arrive as --skip gpu.cuda: $(xargs <"$WORK/args")"

healthcheck IBGPU_CHECK_ARGS="--skip node.kernel_log --quiet"
[ "$rc" -eq 0 ] || fail "the health check exited $rc: $(cat "$WORK/err")"
tail -n3 "$WORK/args" | paste -sd'|' | grep -qx -- '--skip|node.kernel_log|--quiet' ||
  fail "IBGPU_CHECK_ARGS from the environment did not win: $(xargs <"$WORK/args")"
echo "healthcheck IBGPU_CHECK_ARGS: ok"
