#!/bin/bash
# sbatch ci/slurm/burn-in.sbatch on four nodes without GPU GRES: the binary and the settings come
# from the settings file (IBGPU_CONFIG), not from PATH; the job completes (Slurm's JobState and
# ExitCode), and its JSON Lines stream holds every round and the summary for the four nodes.
# Its tasks share one CPU (SLURM_LANE_CPU): unpinned on two cores, the kernel kept the ranks of
# some pairs on one core and split others, and a clean burn-in read two links degraded in every round
# (NET_BW_OUTLIER, exit 1) in one fresh clone; pinned, every pair shares the CPU alike.
SLURM_LANE_CPU=0
source "$(dirname "$0")/lib.sh"
cluster_up
fixtures s1 s2 s3 s4
write_config
cat >>"$CONFIG" <<'CONF'
IBGPU_SYSFS_ROOT=
IBGPU_BURN_IN_DURATION=12s
IBGPU_BURN_IN_INTERVAL=4s
IBGPU_BURN_IN_OPTIONS="--transport mpi --sizes 1M --window 16 --iters 10 --allreduce off --timeout 30"
CONF
# Not from this test's environment: IBGPU (CTest's) and a PATH without ibgpu.
job=$(cd "$WORK" && env -u IBGPU IBGPU_CONFIG="$CONFIG" sbatch --parsable -N 4 "$SRC/ci/slurm/burn-in.sbatch")
job_field() { scontrol show job -o "$job" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
job_done() { case "$(job_field JobState)" in PENDING | RUNNING | CONFIGURING | COMPLETING) return 1 ;; esac; }
# `sbatch --wait` returns late (it polls slowly): ask scontrol instead.
wait_for 120 "burn-in job $job done" job_done
out=$WORK/burn-in-$job.out
[ "$(job_field JobState)" = COMPLETED ] ||
  fail "job $job: JobState=$(job_field JobState) ExitCode=$(job_field ExitCode): $(tail -n 20 "$out" 2>/dev/null)"
[ "$(job_field ExitCode)" = 0:0 ] || fail "job $job: ExitCode=$(job_field ExitCode), want 0:0 (healthy)"
python3 - "$WORK/burn-in-$job.jsonl" <<'PY' || fail "burn-in-$job.jsonl is not the stream expected"
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
rounds = [r for r in records if r['record'] == 'round']
assert len(rounds) >= 2, [r['record'] for r in records]
assert [r['round'] for r in rounds] == list(range(1, len(rounds) + 1))
assert records[-1]['record'] == 'summary' and records[-1]['rounds'] == len(rounds), records[-1]
for r in rounds + [records[-1]]:
    hosts = sorted({v['entity']['id'] for v in r['report']['verdicts'] if v['entity']['kind'] == 'node'})
    assert hosts == ['s1', 's2', 's3', 's4'], hosts
PY
validate "$WORK/burn-in-$job.json"
wait_for 30 "the job's nodes leave COMPLETING" no_jobs
expect_idle s1 s2 s3 s4
echo "burn-in job $job: COMPLETED 0:0, $(grep -c '"record":"round"' "$WORK/burn-in-$job.jsonl") rounds and a summary for s1..s4"
