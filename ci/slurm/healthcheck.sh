#!/bin/bash
# A quick ibgpu check of this node for Slurm, as its HealthCheckProgram or in
# a Prolog. It runs `ibgpu check` on the local node only (one process: GPU and
# RDMA port health, kernel log; no network pairs) under a short timeout, and
# with --slurm-drain: a failed or unchecked node is drained with a reason
# starting "ibgpu:", a fit node that ibgpu drained earlier is resumed, and a
# node a person drained for another reason is left alone.
#
# slurm.conf, as the periodic health check (slurmd runs it as root, and
# ignores its exit status: the script drains the node itself):
#   HealthCheckProgram=/usr/local/libexec/ibgpu/healthcheck.sh
#   HealthCheckInterval=600
#   HealthCheckNodeState=IDLE,CYCLE   # idle nodes only: the check loads the GPUs
# or before every job, on each of its nodes:
#   Prolog=/usr/local/libexec/ibgpu/healthcheck.sh
#   PrologFlags=Alloc
#
# Exit status:
#   0  the node is fit (healthy, or degraded and admitted with fewer GPUs or rails)
#   1  the node was failed or could not be checked (unknown), or the check timed
#      out: it is drained. In a Prolog this also requeues the job, and Slurm
#      replaces the drain reason with its own ("Prolog error"): such a node is
#      then resumed by hand, not by a later check.
#   2  this script could not run ibgpu at all (not found, usage error): nothing
#      was drained (a broken health check must not empty the cluster).
#
# Settings (environment; slurmd passes its own, so set them in a wrapper or here):
#   IBGPU            the binary                       (default: ibgpu on PATH)
#   IBGPU_PROFILE    hardware profile, e.g. hgx-h100-ndr (default: generic, which
#                    calls a node without GPUs or RDMA unknown, and so drains it)
#   IBGPU_HC_TIMEOUT seconds the whole check may take (default: 120)
#   IBGPU_HC_REPORT  where to keep the last JSON report (default: /run/ibgpu-healthcheck.json)
set -uo pipefail

IBGPU=${IBGPU:-ibgpu}
PROFILE=${IBGPU_PROFILE:-generic}
LIMIT=${IBGPU_HC_TIMEOUT:-120}
REPORT=${IBGPU_HC_REPORT:-/run/ibgpu-healthcheck.json}
# Slurm's name for this node, so that scontrol finds it; ibgpu names hosts by IBGPU_HOSTNAME.
NODE=${SLURMD_NODENAME:-$(hostname -s)}
export IBGPU_HOSTNAME=$NODE

say() { logger -t ibgpu-healthcheck -- "$*" 2>/dev/null; echo "ibgpu-healthcheck: $*" >&2; }

if ! command -v "$IBGPU" >/dev/null 2>&1; then
  say "$IBGPU not found: node $NODE not checked"
  exit 2
fi

drain() {
  say "draining $NODE: $1"
  scontrol update NodeName="$NODE" State=DRAIN Reason="ibgpu: $1"
}

rm -f "$REPORT"
# ibgpu's own --timeout bounds each wait inside the check; `timeout` bounds the
# whole, and kills it if it hangs in a driver call.
timeout --kill-after=10 "$LIMIT" "$IBGPU" check --profile "$PROFILE" --allreduce off \
  --timeout 30 --action-timeout 20 --slurm-drain --json "$REPORT" >/dev/null
rc=$?
case $rc in
  0 | 1)
    exit 0
    ;;
  2 | 3)
    # With a report, ibgpu drained the node itself (--slurm-drain); without
    # one it stopped before judging, and the node is not known to be fit.
    if [ -s "$REPORT" ]; then say "node $NODE not fit (ibgpu exit $rc); report in $REPORT"
    else drain "check ended without a report (exit $rc)"; fi
    exit 1
    ;;
  124 | 137)
    drain "health check timed out after ${LIMIT} s"
    exit 1
    ;;
  *)
    say "ibgpu check could not run (exit $rc): node $NODE not checked"
    exit 2
    ;;
esac
