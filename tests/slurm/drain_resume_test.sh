#!/bin/bash
# A node whose RDMA port is DOWN (its sysfs tree, real kernel format) is drained in Slurm by
# `ibgpu check --slurm-drain` over the four nodes, with a reason starting "ibgpu:", and no other
# node is; once its port is up again, the next check (on that node: a drained node gets no job)
# resumes it.
source "$(dirname "$0")/lib.sh"
cluster_up
fixtures s1 s2 s3 s4
port_down s3
srun_check --slurm-drain --json "$WORK/bad.json" >"$WORK/bad.out" 2>"$WORK/bad.err"
[ -s "$WORK/bad.json" ] || fail "check with s3's port down (exit $rc) wrote no report: $(tail -n 20 "$WORK/bad.err")"
[ "$rc" -eq 2 ] || fail "s3's port down: exit $rc, want 2 (failed)"
wait_for 30 "the job's nodes leave COMPLETING" no_jobs
drained_by_ibgpu s3 || fail "s3: State=$(state s3) Reason=$(reason s3), want drained with 'ibgpu: ...'"
expect_idle s1 s2 s4
echo "s3 drained: Reason=$(reason s3)"

port_up s3
check_on s3 --slurm-drain --json "$WORK/good.json"
[ "$rc" -eq 0 ] || fail "s3 fit again: one-host check exited $rc, want 0: $(tail -n 5 "$WORK/check-s3.err")"
expect_resumed s3
echo "s3 resumed by the next check: State=$(state s3)"
