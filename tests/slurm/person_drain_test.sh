#!/bin/bash
# A node a person drained keeps that drain and reason, whatever ibgpu finds on it: a fit check
# does not resume it, a failed check does not drain it over the person's reason, and the health
# check (ci/slurm/healthcheck.sh, run as slurmd runs it) does not touch it. A node that is
# draining a running job is not checked until the job ends, whoever drained it; then the health
# check resumes the one ibgpu drained.
source "$(dirname "$0")/lib.sh"
cluster_up
fixtures s1 s2 s3 s4
write_config
write_hc_wrapper
scontrol update NodeName=s2 State=DRAIN Reason="maintenance"

check_on s2 --slurm-drain
[ "$rc" -eq 0 ] || fail "s2 fit: exit $rc, want 0: $(tail -n 5 "$WORK/check-s2.err")"
expect_person_drain s2 maintenance
port_down s2
check_on s2 --slurm-drain
[ "$rc" -eq 2 ] || fail "s2 port down: exit $rc, want 2: $(tail -n 5 "$WORK/check-s2.err")"
expect_person_drain s2 maintenance
healthcheck_on s2
[ "$hc_rc" = 3 ] || fail "health check on s2 (drained by a person): exit $hc_rc, want 3 (left as it is)"
expect_person_drain s2 maintenance
echo "s2 drained by a person: left alone by ibgpu (fit and failed) and by the health check"

# Draining: a job on s1 (drained by a person) and one on s4 (drained by ibgpu, fit now).
j1=$(sbatch --parsable -w s1 -o /dev/null --wrap "sleep 120")
j4=$(sbatch --parsable -w s4 -o /dev/null --wrap "sleep 120")
job_running() { [ "$(squeue -h -j "$1" -o %T)" = RUNNING ]; }
wait_for 20 "job $j1 running on s1" job_running "$j1"
wait_for 20 "job $j4 running on s4" job_running "$j4"
scontrol update NodeName=s1 State=DRAIN Reason="cable swap"
scontrol update NodeName=s4 State=DRAIN Reason="ibgpu: failed: PORT_DOWN (excluded mlx5_1:1)"
for n in s1 s4; do
  case "$(state "$n")" in *MIXED+DRAIN* | *ALLOCATED+DRAIN*) ;; *) fail "$n: State=$(state "$n"), want draining" ;; esac
  healthcheck_on "$n"
  [ "$hc_rc" = 3 ] || fail "health check on draining $n: exit $hc_rc, want 3 (left as it is)"
  case "$(state "$n")" in *MIXED+DRAIN* | *ALLOCATED+DRAIN*) ;; *) fail "$n after the health check: State=$(state "$n"), want still draining" ;; esac
done
if ! job_running "$j1" || ! job_running "$j4"; then fail "a draining node's job did not go on running"; fi
expect_person_drain s1 "cable swap"
drained_by_ibgpu s4 || fail "s4: Reason=$(reason s4), want ibgpu's kept while its job runs"
echo "draining s1 (person) and s4 (ibgpu): not checked while their jobs run"

scancel "$j1" "$j4"
wait_for 30 "the jobs end" no_jobs
healthcheck_on s4
[ "$hc_rc" = 0 ] || fail "health check on s4, fit, drained by ibgpu: exit $hc_rc, want 0: $(cat "$WORK/healthcheck-s4.err")"
expect_resumed s4
healthcheck_on s1
[ "$hc_rc" = 3 ] || fail "health check on s1 (drained by a person): exit $hc_rc, want 3"
expect_person_drain s1 "cable swap"
echo "after the jobs: s4 resumed by the health check, s1 still the person's"
