#!/bin/bash
# A quick ibgpu check of this node for Slurm, as its HealthCheckProgram or in
# a Prolog. It runs `ibgpu check` on the local node only (one process: GPU and
# RDMA port health, kernel log; no network pairs) under a short timeout, with
# --slurm-drain: a failed or unchecked node is drained with a reason starting
# "ibgpu:", a fit node that ibgpu drained earlier is resumed, and a node
# someone else drained keeps that drain and its reason.
#
# Before checking it asks Slurm about the node (scontrol show node -o) and does
# not check, nor change, a node that
#   - a person drained (drained with a reason not starting "ibgpu:"), or
#   - is draining: drained while a job still runs on it (MIXED+DRAIN,
#     ALLOCATED+DRAIN, COMPLETING+DRAIN): that job is left to finish, and the
#     first check after it acts.
#
# slurm.conf, as the periodic health check (slurmd runs it as root with almost
# no environment, and ignores its exit status: the script drains the node itself):
#   HealthCheckProgram=/usr/libexec/ibgpu/healthcheck.sh
#   HealthCheckInterval=600
#   HealthCheckNodeState=IDLE,CYCLE   # idle nodes only: the check loads the GPUs
# or before every job, on each of its nodes:
#   Prolog=/usr/libexec/ibgpu/healthcheck.sh
#   PrologFlags=Alloc
# (where the Debian package installs it; `cmake --install --prefix P`: P/libexec/ibgpu/healthcheck.sh)
#
# Settings come from a config file, since slurmd passes almost no environment:
# /etc/default/ibgpu, or the file IBGPU_CONFIG names. It is read by bash
# (VAR=value lines; SLURMD_NODENAME is set while it is read, so a value may
# name the node); a variable already in the environment wins over the file.
#   IBGPU             the binary                 (default: ibgpu on PATH)
#   IBGPU_PROFILE     hardware profile, e.g. hgx-h100-ndr, or cpu for nodes without
#                     GPUs or RDMA (default: generic, which calls such a node unknown,
#                     and so drains it)
#   IBGPU_SYSFS_ROOT  read sysfs from there instead of /sys (tests and replays)
#   IBGPU_CHECK_ARGS  more options for `ibgpu check`, split at spaces on purpose (no
#                     quoting), e.g. "--skip gpu.cuda" on nodes that run jobs
#   IBGPU_HC_TIMEOUT  seconds the whole check may take (default: 120)
#   IBGPU_HC_REPORT   where to keep the last JSON report (default: /run/ibgpu-healthcheck.json)
#   IBGPU_HISTORY     keep each check's outcome in this folder, and let the node's earlier
#                     checks decide with it (check --history; default: none)
#   SLURM_CONF, PATH  for scontrol, where they are not the defaults
# e.g.  IBGPU=/opt/ibgpu/bin/ibgpu
#       IBGPU_PROFILE=hgx-h100-ndr
#
# Exit status (slurmd ignores it for HealthCheckProgram; in a Prolog anything
# but 0 drains the node with Slurm's own reason and requeues the job):
#   0  the report admits the node (healthy, or degraded and admitted with fewer GPUs
#      or rails): it stays in service
#   1  the report drains the node (a finding, or a check missing because of the node),
#      or the check timed out: it is drained. In a Prolog this also requeues the job, and Slurm
#      replaces the drain reason with its own ("Prolog error"): such a node is
#      then resumed by hand, not by a later check.
#   2  ibgpu or scontrol could not run (not found, usage error, crash, no
#      answer from Slurm): nothing was changed (a broken health check must not
#      empty the cluster)
#   3  not checked: drained by a person, or draining a job; nothing was changed
# In a Prolog (SLURM_SCRIPT_CONTEXT=prolog_slurmd) 2 and 3 are 0: the job runs.
set -uo pipefail

NODE=${SLURMD_NODENAME:-$(hostname -s)}
SLURMD_NODENAME=$NODE

# The settings: the config file first, then what the environment already had.
settings=(IBGPU IBGPU_PROFILE IBGPU_SYSFS_ROOT IBGPU_CHECK_ARGS IBGPU_HC_TIMEOUT IBGPU_HC_REPORT IBGPU_HISTORY SLURM_CONF)
config=${IBGPU_CONFIG:-/etc/default/ibgpu}
if [ -r "$config" ]; then
  given=()
  for name in "${settings[@]}"; do [ -n "${!name+x}" ] && given+=("$name=${!name}"); done
  set -a
  # shellcheck disable=SC1090  # the site's file, named at run time
  . "$config"
  set +a
  for pair in ${given[@]+"${given[@]}"}; do export "${pair%%=*}=${pair#*=}"; done
fi

IBGPU=${IBGPU:-ibgpu}
PROFILE=${IBGPU_PROFILE:-generic}
LIMIT=${IBGPU_HC_TIMEOUT:-120}
REPORT=${IBGPU_HC_REPORT:-/run/ibgpu-healthcheck.json}
# Slurm's name for this node, so that scontrol finds it; ibgpu names hosts by IBGPU_HOSTNAME.
export IBGPU_HOSTNAME=$NODE

say() { logger -t ibgpu-healthcheck -- "$*" 2>/dev/null; echo "ibgpu-healthcheck: $*" >&2; }

# done_nothing CODE: 2 or 3, but 0 in a Prolog, where anything else drains the node.
done_nothing() {
  if [ "${SLURM_SCRIPT_CONTEXT:-}" = prolog_slurmd ]; then exit 0; fi
  exit "$1"
}

# The node's state and reason now; status 1 when Slurm does not answer.
node_line() { scontrol show node -o "$NODE" 2>/dev/null | grep -m1 "State="; }
field() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p" | head -n1; }
reason_of() { sed -n 's/.* Reason=\(.*\)$/\1/p' <<<"$1"; }

# left_as_is LINE: true (and says why) for a node this check must not touch.
left_as_is() {
  local state reason
  state=$(field "$1" State)
  reason=$(reason_of "$1")
  case $state in *DRAIN*) ;; *) return 1 ;; esac
  case $reason in
    ibgpu:*) ;;
    *) say "node $NODE left as it is: drained by someone else (State=$state Reason=$reason)"; return 0 ;;
  esac
  case $state in
    *ALLOCATED* | *MIXED* | *COMPLETING*)
      say "node $NODE left as it is: draining a running job (State=$state); checked after it"
      return 0
      ;;
  esac
  return 1
}

if ! command -v "$IBGPU" >/dev/null 2>&1; then
  say "$IBGPU not found: node $NODE not checked"
  done_nothing 2
fi
if ! line=$(node_line); then
  say "scontrol show node $NODE gave no answer (SLURM_CONF=${SLURM_CONF:-default}): node not checked"
  done_nothing 2
fi
if left_as_is "$line"; then done_nothing 3; fi

extra=()
if [ -n "${IBGPU_SYSFS_ROOT:-}" ]; then extra+=(--sysfs-root "$IBGPU_SYSFS_ROOT"); fi
if [ -n "${IBGPU_HISTORY:-}" ]; then extra+=(--history "$IBGPU_HISTORY"); fi
if [ -n "${IBGPU_CHECK_ARGS:-}" ]; then
  read -r -a more <<<"$IBGPU_CHECK_ARGS"
  extra+=("${more[@]}")
fi

rm -f "$REPORT"
# ibgpu's own --timeout bounds each wait inside the check; `timeout` bounds the
# whole, and kills it if it hangs in a driver call.
timeout --kill-after=10 "$LIMIT" "$IBGPU" check --profile "$PROFILE" --allreduce off \
  --timeout 30 --action-timeout 20 --slurm-drain --json "$REPORT" "${extra[@]}" >/dev/null
rc=$?
case $rc in
  0 | 1 | 2 | 3)
    # The admission the report decided for this node, not the exit code alone: admitted
    # (healthy, or degraded with fewer GPUs or rails) stays in service; drained was drained by
    # ibgpu itself (--slurm-drain). Without a report, or without a decision for this node (an
    # interrupted run decides nothing), ibgpu could not judge it: nothing changed.
    decision=""
    if [ -s "$REPORT" ]; then
      decision=$("$IBGPU" report "$REPORT" --format admission 2>/dev/null | awk -F '\t' -v n="$NODE" '$1 == n { print $2 " (" $3 ": " $4 ")"; exit }')
    fi
    case $decision in
      admit\ * | admit_degraded\ *)
        exit 0
        ;;
      drain\ *)
        say "node $NODE not fit: $decision (ibgpu exit $rc); report in $REPORT"
        exit 1
        ;;
    esac
    say "ibgpu check (exit $rc) decided nothing for node $NODE${decision:+: $decision}: not checked"
    done_nothing 2
    ;;
  124 | 137)
    # A check that hangs (a driver call that never returns) is a fault of the
    # node; drained unless someone else drained it meanwhile.
    if line=$(node_line) && left_as_is "$line"; then done_nothing 3; fi
    say "draining $NODE: health check timed out after ${LIMIT} s"
    scontrol update NodeName="$NODE" State=DRAIN Reason="ibgpu: health check timed out after ${LIMIT} s"
    exit 1
    ;;
  *)
    say "ibgpu check could not run (exit $rc): node $NODE not checked"
    done_nothing 2
    ;;
esac
