#!/bin/bash
# `ibgpu check` over 2 ranks: a report whose exit code matches its summary,
# and verdicts that never call an unchecked host healthy.
source "$(dirname "$0")/lib.sh"
out=$WORK/check.json
mpi 60 2 "$IBGPU" check --json "$out" >"$WORK/stdout"
validate "$out"
check_report "$out" summary "$rc"
# What Prometheus would scrape of a real run passes Prometheus' own check (promtool).
"$IBGPU_SOURCE_DIR/tests/tools/prometheus_clean.sh" "$out" || fail "check: the Prometheus text is not clean"
grep -q "^Summary: " "$WORK/stdout" || fail "no summary line"
# The all-reduce step: both halves (out-of-place, in-place) of each size, checked, nothing wrong.
check_report "$out" allreduce
mpi 60 2 "$IBGPU" check --allreduce off --sizes 64K --json "$WORK/off.json" >/dev/null
check_report "$WORK/off.json" allreduce_off
# A sysfs fixture with a DOWN port makes that port failed, the node degraded.
fixture=$IBGPU_SOURCE_DIR/tests/data/sysfs/degraded
if [ -d "$fixture" ]; then
  mpi 60 2 "$IBGPU" check --sysfs-root "$fixture" --json "$out" >/dev/null
  validate "$out"
  check_report "$out" degraded_fixture "$rc"
fi
echo "check over 2 ranks: ok (exit $rc)"
