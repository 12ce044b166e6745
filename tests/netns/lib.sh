# shellcheck shell=bash
# Sourced by the netns lane tests: hosts in network namespaces (ci/netns/lib.sh), one rank each,
# real TCP paths between them, faults injected with qdiscs and signals.
set -euo pipefail
: "${IBGPU:?path of the ibgpu binary}" "${IBGPU_SOURCE_DIR:?repository root}"
# shellcheck source=ci/netns/lib.sh
source "$IBGPU_SOURCE_DIR/ci/netns/lib.sh"
netns_require  # exits 77 (ctest: skipped) with the reason
PY=/usr/bin/python3
# Every host's ranks on one CPU (IBGPU_NETNS_CPU, a taskset list; empty: where the kernel puts them).
# The lane's hosts share this machine's cores, and with two cores the kernel kept the ranks of some
# pairs on one core and split others: four clean hosts read 1.5-1.6 GB/s in one round and 0.7-0.9 in
# the others, run after run, and the fleet rule rightly called the slow rounds' links outliers (3
# lane tests failed so in one fresh clone). On one CPU every round shares it alike: 0.62-0.93 GB/s
# over three runs, no suspect. A real fleet has no such coupling between its pairs.
NETNS_CPU=${IBGPU_NETNS_CPU-0}

# Failure messages go to the test's own stderr even from inside a redirected call.
exec 9>&2
fail() { echo "FAIL: $*" >&9; exit 1; }

# IBGPU_NETNS_KEEP=DIR keeps each test's reports and logs in DIR/<test name>.
netns_before_down() {
  [ -n "${IBGPU_NETNS_KEEP:-}" ] && [ -d "${WORK:-}" ] || return 0
  local dest
  dest=$IBGPU_NETNS_KEEP/$(basename "$0" .sh)
  mkdir -p "$dest" && cp -r "$WORK/." "$dest/"
}

# hosts_up N: the namespace hosts h1..hN (torn down on exit); WORK is scratch inside the run's folder.
hosts_up() {
  netns_up "$1"
  WORK=$NETNS_DIR/work
  mkdir -p "$WORK"
}

# ibgpu_on_hosts LIMIT ARGS...: the binary on every host under a hard timeout; sets rc, elapsed.
# mpirun's --quiet keeps its "job aborted" banner off: the report and the exit code speak.
# Extra mpirun options go in the array MPIRUN_OPTS; RANK_PROGRAM, when set, is started instead of
# the binary (a wrapper that gives each host its own environment, then runs the binary).
MPIRUN_OPTS=()
ibgpu_on_hosts() {
  local limit=$1
  shift
  netns_mpirun "$limit" --quiet ${MPIRUN_OPTS[@]+"${MPIRUN_OPTS[@]}"} "${RANK_PROGRAM:-$IBGPU}" "$@"
  [ "$elapsed" -lt "$limit" ] || fail "ibgpu hung past ${limit}s (exit $rc): $*"
  local left
  left=$(netns_leftovers)
  [ -z "$left" ] || fail "processes left in the namespaces after mpirun returned: $left"
}

validate() { "$PY" "$IBGPU_SOURCE_DIR/tests/tools/validate_json.py" "$IBGPU_SOURCE_DIR/reports/schema/report.schema.json" "$@"; }

# check_report FILE CASE [ARG...]: CASE of the test's own checks (NAME_test.py beside NAME_test.sh,
# or the module REPORT_CHECKS names, with the helpers of tests/netns/report.py) on the report FILE,
# with the ARGs; its assert statements fail the test. Values the shell knows arrive as ARGs, never
# pasted into Python source. (-B: importing report.py leaves no __pycache__ in the source tree.)
check_report() { "$PY" -B "${REPORT_CHECKS:-${0%.sh}.py}" "$2" "$1" "${@:3}"; }

# The check every scenario runs: MPI transport between every host pair, small enough for a
# 2-core machine (one size, a short window, few iterations; check_with ITERS [ALLREDUCE] for other);
# scenarios add --timeout and --json. The all-reduce step is off: it has no size option in
# `check` (1M and 16M), through a 50mbit host it would take minutes, and the MPI lane tests it.
# Every scenario runs under the lane's own profile: the shipped ones need 8 pairs for a fleet
# median and assume a quiet machine. (It used to be added only when `check --help | grep -q`
# found --profile: under pipefail, grep -q leaving early made that test fail at random.)
PROFILE=(--profile "$IBGPU_SOURCE_DIR/tests/netns/lane.toml")
check_with() {  # ITERS [ALLREDUCE]
  # shellcheck disable=SC2034  # read by the tests that source this file
  CHECK=(check --transport mpi --pairs all --sizes 64K --window 16 --iters "$1" --allreduce "${2:-off}"
         ${PROFILE[@]+"${PROFILE[@]}"})
}
check_with 10

# gpu_nodes TREE: every rank becomes a GPU node of the sysfs fixture tests/data/sysfs/TREE, with the
# NVML of the test-only injection library answering from the scenario whose path is in
# $WORK/scenario/<host name> (the test writes one a host), and IMEX's files read under
# $WORK/imex/<host name> where the test made that folder: sets RANK_PROGRAM to the wrapper.
gpu_nodes() {
  : "${IBGPU_NVML_INJECTION_DIR:?folder of the NVML injection library (set by CTest)}"
  [ -f "$IBGPU_NVML_INJECTION_DIR/libnvidia-ml.so.1" ] || fail "no libnvidia-ml.so.1 in $IBGPU_NVML_INJECTION_DIR"
  mkdir -p "$WORK/scenario"
  cat >"$WORK/rank.sh" <<WRAPPER
#!/bin/sh
imex="$WORK/imex/\$(hostname)"
[ -d "\$imex" ] && set -- "\$@" --imex-root "\$imex"
LD_LIBRARY_PATH="$IBGPU_NVML_INJECTION_DIR" IBGPU_NVML_SCENARIO="\$(cat "$WORK/scenario/\$(hostname)")" \\
  exec "$IBGPU" "\$@" --sysfs-root "$IBGPU_SOURCE_DIR/tests/data/sysfs/$1"
WRAPPER
  chmod +x "$WORK/rank.sh"
  RANK_PROGRAM=$WORK/rank.sh
}

# Verdict assertions for fleet-relative judging and node-vs-link localisation (the measurement
# facts are asserted either way); IBGPU_NETNS_EXPECT_LOCALISATION=0 leaves the verdicts out.
# shellcheck disable=SC2034  # read by the tests that source this file
EXPECT_LOCALISATION=${IBGPU_NETNS_EXPECT_LOCALISATION:-1}
