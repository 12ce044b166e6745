#!/bin/bash
# Admission actions of `ibgpu check`, one process, against a fake scontrol
# first on PATH that logs its argv (one argument a line, "--" after each call)
# and answers `show node` from fixture files.
source "$(dirname "$0")/lib.sh"

mkdir -p "$WORK/bin" "$WORK/nodes"
cat >"$WORK/bin/scontrol" <<'SH'
#!/bin/bash
{ for a in "$@"; do printf '%s\n' "$a"; done; echo --; } >>"$FAKE_SCONTROL_LOG"
if [ "$1" = show ] && [ "$2" = node ]; then
  cat "$FAKE_SCONTROL_NODES/$3" 2>/dev/null || { echo "Node $3 not found" >&2; exit 1; }
fi
if [ "$1" = update ] && [ -n "${FAKE_SCONTROL_FAIL:-}" ]; then echo "slurm_update error: Invalid node name" >&2; exit 1; fi
exit 0
SH
chmod +x "$WORK/bin/scontrol"
export PATH="$WORK/bin:$PATH" FAKE_SCONTROL_NODES="$WORK/nodes"

# A CPU-only node without RDMA, as the empty sysfs fixture shows one: admitted. A node checked
# alone has no peers to hold its loopback pair against: the profile's floors judge it (without
# them the pair is NOT_JUDGED: recorded, not held against the node).
cat >"$WORK/cpu-node.toml" <<'TOML'
name = "cpu-node"
[node]
expect_gpus = 0
expect_active_ports = 0
[network.mpi_bw_GBps]
degraded = 0.001
[network.lat_p50_us]
degraded = 1000000.0
TOML
# The same host judged as an 8-GPU node with an RDMA port: its GPUs unchecked (no driver), and no
# RDMA port where one is expected: failed (IB_PORTS_MISSING), drained.
cat >"$WORK/gpu-node.toml" <<'TOML'
name = "gpu-node"
[node]
expect_gpus = 8
expect_active_ports = 1
TOML
# Two ranks of one host, paired with --loopback: a single rank has no pair to measure, and a check
# that could not measure the network is not fit.
fit=(--profile "$WORK/cpu-node.toml" --sysfs-root "$IBGPU_SOURCE_DIR/tests/data/sysfs/empty" --allreduce off
     --loopback --sizes 64K --iters 20)
unfit=(--profile "$WORK/gpu-node.toml" --sysfs-root "$IBGPU_SOURCE_DIR/tests/data/sysfs/empty" --allreduce off)

# check NAME HOST ARGS...: one `ibgpu check` as host HOST; sets $rc (lib.sh's), log in $WORK/NAME.log.
check() {
  local name=$1 host=$2; shift 2
  export FAKE_SCONTROL_LOG="$WORK/$name.log"
  set +e
  IBGPU_HOSTNAME=$host timeout 120 mpirun --bind-to none -np 2 -x IBGPU_HOSTNAME -x FAKE_SCONTROL_LOG -x PATH \
    "$IBGPU" check --json "$WORK/$name.json" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err"
  rc=$?
  set -e
}
logged() { cat "$WORK/$1.log" 2>/dev/null || true; }
# The node's short reasons as the report's Kubernetes annotation has them (the drain reason too).
reasons_of() { check_report "$WORK/$1.json" reasons "$2"; }

# 1. A failed node is drained: exactly these arguments, the host with shell
#    metacharacters arriving as written, the reason one argument.
# shellcheck disable=SC2016  # the metacharacters are the point: they must reach scontrol unexpanded
host='gpu01;touch pwned $(id) `id` "q" '\''s'
check drain "$host" "${unfit[@]}" --slurm-drain
[ "$rc" -eq 2 ] || fail "drained node: exit $rc, want 2 (failed): $(cat "$WORK/drain.err")"
validate "$WORK/drain.json"
reason=$(reasons_of drain "$host")
case $reason in failed:*IB_PORTS_MISSING*"not checked:"*) ;; *) fail "unexpected reason: $reason" ;; esac
expected=$(printf '%s\n' show node "$host" -o -- update "NodeName=$host" State=DRAIN "Reason=ibgpu: $reason" --)
[ "$(logged drain)" = "$expected" ] || fail "drain argv: got
$(logged drain)
want
$expected"
if [ -e pwned ] || [ -e "$WORK/pwned" ]; then fail "a host name was run through a shell"; fi
check_report "$WORK/drain.json" drained "$host"
# The table and the report say the drain was asked for, and that it runs after the report.
grep -q "^Admission actions run once this report is written" "$WORK/drain.out" ||
  fail "the table does not say the drain runs: $(grep -A1 "^Not admitted" "$WORK/drain.out")"
grep -q '"admission_actions":"run"' "$WORK/drain.json" || fail "the report lacks run.admission_actions run"

# 2. A fit node drained by a person is left alone, and the report says so.
echo "NodeName=cpu01 State=IDLE+DRAIN Reason=PSU swap [alice@2026-11-28T16:00:00]" >"$WORK/nodes/cpu01"
check human cpu01 "${fit[@]}" --slurm-drain
[ "$rc" -eq 0 ] || fail "fit node: exit $rc, want 0: $(cat "$WORK/human.err")"
[ "$(logged human)" = "$(printf '%s\n' show node cpu01 -o --)" ] || fail "human-drained node: scontrol was asked $(logged human)"
grep -q "cpu01 left drained" "$WORK/human.err" || fail "no word about the node left drained: $(cat "$WORK/human.err")"
check_report "$WORK/human.json" left_drained
validate "$WORK/human.json"

# 2b. An unfit node drained by a person keeps the person's reason: asked, not updated.
echo "NodeName=gpu03 State=IDLE+DRAIN Reason=maintenance [alice@2026-11-28T16:00:00]" >"$WORK/nodes/gpu03"
check human_unfit gpu03 "${unfit[@]}" --slurm-drain
[ "$rc" -eq 2 ] || fail "unfit node drained by a person: exit $rc, want 2: $(cat "$WORK/human_unfit.err")"
[ "$(logged human_unfit)" = "$(printf '%s\n' show node gpu03 -o --)" ] ||
  fail "unfit node drained by a person: scontrol was asked $(logged human_unfit)"
grep -q "gpu03 left drained as it is" "$WORK/human_unfit.err" || fail "no word about the node: $(cat "$WORK/human_unfit.err")"

# 3. A fit node that ibgpu drained earlier is resumed.
echo "NodeName=cpu02 State=IDLE+DRAIN Reason=ibgpu: failed: GPU_MISSING [root@2026-11-29T10:00:00]" >"$WORK/nodes/cpu02"
check resume cpu02 "${fit[@]}" --slurm-drain
[ "$rc" -eq 0 ] || fail "resume: exit $rc"
[ "$(logged resume)" = "$(printf '%s\n' show node cpu02 -o -- update NodeName=cpu02 State=RESUME --)" ] ||
  fail "resume argv: $(logged resume)"

# 4. --dry-run runs nothing and shows the command, quoted.
check dry "$host" "${unfit[@]}" --slurm-drain --dry-run
[ "$rc" -eq 2 ] || fail "dry run: exit $rc"
[ ! -e "$WORK/dry.log" ] || fail "--dry-run ran scontrol: $(logged dry)"
line=$(grep "dry run: drain" "$WORK/dry.err") || fail "dry run printed nothing: $(cat "$WORK/dry.err")"
# The printed command is one bash reads back into the same arguments.
printf -v want '<%s>' scontrol update "NodeName=$host" State=DRAIN "Reason=ibgpu: $reason"
cmd=${line#*"drained by someone else): "}
got=$(bash -c "printf '<%s>' $cmd")
[ "$got" = "$want" ] || fail "dry-run line does not read back: $line"
grep -q "^Dry run: the admission commands were printed on stderr, not run; nothing was drained" "$WORK/dry.out" ||
  fail "the table does not say it was a dry run: $(grep -A1 "^Not admitted" "$WORK/dry.out")"
grep -q '"admission_actions":"dry_run"' "$WORK/dry.json" || fail "the report lacks run.admission_actions dry_run"

# 4b. Without an action option the verdict is the same, and the table says nothing was drained.
check plain "$host" "${unfit[@]}"
[ "$rc" -eq 2 ] || fail "no action asked: exit $rc"
[ ! -e "$WORK/plain.log" ] || fail "no action asked, yet scontrol ran: $(logged plain)"
grep -q "^No admission action was requested, so nothing was drained" "$WORK/plain.out" ||
  fail "the table does not say nothing was drained: $(grep -A1 "^Not admitted" "$WORK/plain.out")"
! grep -q '"admission_actions"' "$WORK/plain.json" || fail "run.admission_actions present with no action asked"

# 5. A failing drain command: noted, verdict and exit code unchanged.
FAKE_SCONTROL_FAIL=1 check failing gpu02 "${unfit[@]}" --slurm-drain
[ "$rc" -eq 2 ] || fail "failing drain changed the exit code to $rc"
check_report "$WORK/failing.json" failing_drain
grep -q "drain of gpu02 failed (exit 1)" "$WORK/failing.err" || fail "failure not on stderr"

# 6. A template of one's own, with the placeholders inside single arguments.
check custom "a b" "${unfit[@]}" --drain-cmd "scontrol custom --host={host} 'why: {reason}'"
[ "$(logged custom)" = "$(printf '%s\n' custom '--host=a b' "why: $(reasons_of custom "a b")" --)" ] ||
  fail "custom template argv: $(logged custom)"

# 7. Usage errors: an unbalanced quote, an unknown placeholder, two drain forms, a dry run of nothing.
usage_case() {
  local rc
  set +e
  "$IBGPU" check "$@" >/dev/null 2>"$WORK/usage.err"
  rc=$?
  set -e
  [ "$rc" -eq 64 ] || fail "'$*' exited $rc: $(cat "$WORK/usage.err")"
}
usage_case --drain-cmd "'open"
usage_case --drain-cmd "{hostname}"
usage_case --slurm-drain --drain-cmd x
usage_case --dry-run
echo "admission actions: ok"
