# shellcheck shell=bash
# Sourced by the Slurm lane tests: a real Slurm 22.05 cluster of four nodes s1..s4 in network
# namespaces (ci/slurm/lib.sh), one per test, torn down on exit. Every assertion is on Slurm's
# own state (scontrol show node: State= and Reason=; scontrol show job), not on ibgpu's output.
set -euo pipefail
: "${IBGPU:?path of the ibgpu binary}" "${IBGPU_SOURCE_DIR:?repository root}"
IBGPU=$(realpath "$IBGPU")
SRC=$(realpath "$IBGPU_SOURCE_DIR")
# shellcheck source=ci/slurm/lib.sh
source "$SRC/ci/slurm/lib.sh"
slurm_require  # exits 77 (ctest: skipped) with the reason

# Failure messages go to the test's own stderr even from inside a redirected call.
exec 9>&2
FAILED=0
fail() {
  FAILED=1
  echo "FAIL: $*" >&9
  exit 1
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ibgpu-slurm.$$.XXXXXX")
chmod 755 "$WORK"  # munged wants every folder above its socket searchable by all
# IBGPU_SLURM_KEEP=DIR keeps each test's folder (reports, daemon logs) in DIR/<test name>.
lane_down() {
  local status=$?
  if [ "$status" -ne 0 ] || [ "$FAILED" -ne 0 ]; then slurm_show_logs 2>&9 || true; fi
  slurm_down "$SLURM_DIR"
  if [ -n "${IBGPU_SLURM_KEEP:-}" ]; then
    mkdir -p "$IBGPU_SLURM_KEEP/$(basename "$0" .sh)"
    cp -r "$WORK/." "$IBGPU_SLURM_KEEP/$(basename "$0" .sh)/" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap 'lane_down' EXIT
trap 'exit 130' INT TERM

# The ranks' MPI (OpenMPI under srun --mpi=pmix): TCP between the namespaces, and waiting ranks
# give the CPU away (four ranks share two cores).
export OMPI_MCA_btl=tcp,self OMPI_MCA_mpi_yield_when_idle=1
# Every node's tasks on one CPU where a test sets SLURM_LANE_CPU (a taskset list; ci/slurm/lib.sh),
# as the netns lane does (tests/netns/lib.sh). IBGPU_SLURM_CPU overrides it (empty: unpinned).
[ -z "${IBGPU_SLURM_CPU+set}" ] || SLURM_LANE_CPU=$IBGPU_SLURM_CPU

# cluster_up: s1..s4 idle. cluster_up_checked PROG INTERVAL: with PROG as slurmd's HealthCheckProgram.
cluster_up() {
  slurm_up "$WORK/cluster" 4
  remove_old_work
}
cluster_up_checked() {
  slurm_up "$WORK/cluster" 4 "$1" "$2"
  remove_old_work
}
# The folders of runs killed before their trap ran (a CTest timeout): their names carry the pid
# of the test that made them. Only after slurm_up, which stops such a run's cluster by the pid
# files in its folder.
remove_old_work() {
  local old
  for old in "${TMPDIR:-/tmp}"/ibgpu-slurm.*; do
    [[ $old =~ /ibgpu-slurm\.([0-9]+)\.[^/]*$ ]] || continue
    kill -0 "${BASH_REMATCH[1]}" 2>/dev/null || rm -rf "$old"
  done
}

state() { slurm_node_field "$1" State; }
reason() { slurm_node_field "$1" Reason; }

# wait_for SECONDS WHAT CMD...: polls CMD every 0.2 s until it succeeds; fails naming WHAT.
wait_for() {
  local limit=$1 what=$2 tenths=0
  shift 2
  until "$@"; do
    [ "$tenths" -lt $((limit * 10)) ] || fail "$what: not within ${limit} s"
    sleep 0.2
    tenths=$((tenths + 2))
  done
}

is_state() { [ "$(state "$1")" = "$2" ]; }            # NODE STATE: exactly
drained_by_ibgpu() {                                   # NODE
  case "$(state "$1")" in *DRAIN*) ;; *) return 1 ;; esac
  case "$(reason "$1")" in ibgpu:*) return 0 ;; *) return 1 ;; esac
}
# expect_idle NODE...: each node IDLE (not drained, not down, responding).
expect_idle() {
  local n
  for n in "$@"; do
    [ "$(state "$n")" = IDLE ] || fail "$n: State=$(state "$n") Reason=$(reason "$n"), want IDLE"
  done
}
# expect_resumed NODE: no longer drained, and IDLE once slurmd answers again (right after a
# RESUME Slurm shows the node IDLE+NOT_RESPONDING, "idle*", for a moment).
expect_resumed() {
  case "$(state "$1")" in *DRAIN*) fail "$1: State=$(state "$1") Reason=$(reason "$1"), want resumed" ;; esac
  wait_for 20 "$1 IDLE after its resume (State=$(state "$1"))" is_state "$1" IDLE
}
# expect_person_drain NODE REASON: still drained, with the person's reason.
expect_person_drain() {
  case "$(state "$1")" in *DRAIN*) ;; *) fail "$1: State=$(state "$1"), want drained (by a person)" ;; esac
  case "$(reason "$1")" in "$2 ["*) ;; *) fail "$1: Reason=$(reason "$1"), want the person's '$2'" ;; esac
}
# No job left (the nodes leave COMPLETING before the next step asserts their state).
no_jobs() { [ -z "$(squeue -h -o %i 2>/dev/null)" ]; }

# A sysfs tree per node in real kernel format (the ConnectX-7 NDR fixture: two ACTIVE ports).
# port_down NODE takes every RDMA port of the node DOWN as the kernel shows it (one port of two
# down is a degraded node, admitted with one rail: not drained); port_up NODE brings them back.
SYSFS=$WORK/sysfs
fixtures() {
  local n
  mkdir -p "$SYSFS"
  for n in "$@"; do cp -a "$SRC/tests/data/sysfs/cx7-ndr" "$SYSFS/$n"; done
}
port_down() {
  local p
  for p in "$SYSFS/$1"/class/infiniband/*/ports/*/; do
    echo "1: DOWN" >"$p/state"
    echo "3: Disabled" >"$p/phys_state"
  done
}
port_up() {
  local p
  for p in "$SYSFS/$1"/class/infiniband/*/ports/*/; do
    echo "4: ACTIVE" >"$p/state"
    echo "5: LinkUp" >"$p/phys_state"
  done
}

# The settings file the recipes read (ci/slurm/healthcheck.sh, burn-in.sbatch): the binary, the
# profile for nodes without GPUs, each node's own sysfs tree, and this cluster's SLURM_CONF.
CONFIG=$WORK/ibgpu.conf
write_config() {
  cat >"$CONFIG" <<EOF
IBGPU=$IBGPU
IBGPU_PROFILE=cpu
IBGPU_SYSFS_ROOT=$SYSFS/\$SLURMD_NODENAME
IBGPU_HC_REPORT=$WORK/healthcheck-\$SLURMD_NODENAME.json
IBGPU_HC_TIMEOUT=60
IBGPU_HISTORY=$WORK/history
SLURM_CONF=$SLURM_CONF
EOF
}

# The wrapper slurm.conf names as HealthCheckProgram: slurmd passes almost no environment, so
# it names the settings file; each run is logged (node and exit status) for the test to count.
HC_WRAPPER=$WORK/healthcheck
HC_RUNS=$WORK/healthcheck-runs.log
write_hc_wrapper() {
  cat >"$HC_WRAPPER" <<EOF
#!/bin/sh
IBGPU_CONFIG=$CONFIG /bin/bash $SRC/ci/slurm/healthcheck.sh 2>>$WORK/healthcheck-\$SLURMD_NODENAME.err
echo "\$SLURMD_NODENAME \$?" >>$HC_RUNS
EOF
  chmod +x "$HC_WRAPPER"
}

# healthcheck_on NODE: the health check as slurmd runs it (in the node, no environment but
# SLURMD_NODENAME), through the wrapper; sets hc_rc.
hc_rc=0
healthcheck_on() {
  set +e
  slurm_in_node "$1" env -i SLURMD_NODENAME="$1" "$HC_WRAPPER"
  set -e
  # shellcheck disable=SC2034  # read by the tests that source this file
  hc_rc=$(awk -v n="$1" '$1 == n {rc = $2} END {print rc}' "$HC_RUNS")
}

# check_on NODE ARGS...: a one-host `ibgpu check --profile cpu` in NODE, as that node
# (its sysfs tree, Slurm's name); sets rc.
rc=0
check_on() {
  local node=$1
  shift
  set +e
  slurm_in_node "$node" env IBGPU_HOSTNAME="$node" timeout 120 "$IBGPU" check --profile cpu \
    --sysfs-root "$SYSFS/$node" --allreduce off --timeout 30 "$@" >"$WORK/check-$node.out" 2>"$WORK/check-$node.err"
  rc=$?
  set -e
}

# srun_check ARGS...: `ibgpu check` over the four nodes, one rank each, through srun's PMIx;
# each rank named as Slurm names its node and reading that node's sysfs tree; sets rc.
srun_check() {
  set +e
  # shellcheck disable=SC2016  # expanded by each task's shell
  timeout 60 srun -N 4 --ntasks-per-node=1 --mpi=pmix --kill-on-bad-exit=0 \
    bash -c 'IBGPU_HOSTNAME=$SLURMD_NODENAME exec "$@" --sysfs-root "$IBGPU_LANE_SYSFS/$SLURMD_NODENAME"' rank \
    "$IBGPU" check --profile cpu --transport mpi --sizes 1M --window 16 --iters 10 --allreduce off --timeout 30 "$@"
  rc=$?
  set -e
}
export IBGPU_LANE_SYSFS=$SYSFS

validate() {
  python3 "$SRC/tests/tools/validate_json.py" "$SRC/reports/schema/report.schema.json" "$@"
}
