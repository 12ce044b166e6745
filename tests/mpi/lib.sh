# shellcheck shell=bash
# Sourced by the MPI lane tests: real mpirun, real ranks on this host.
set -euo pipefail
: "${IBGPU:?path of the ibgpu binary}" "${IBGPU_SOURCE_DIR:?repository root}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
PY=/usr/bin/python3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Failure messages go to the test's own stderr even from inside a redirected call.
exec 9>&2
fail() { echo "FAIL: $*" >&9; exit 1; }

# mpi SECONDS NP ARGS...: mpirun under a hard timeout; sets $rc, never aborts the test but for a
# hang, when the last lines of the files named in the array MPI_SHOW_ON_HANG (the run's own
# output, redirected by the caller) go with the failure, so a rare hang in CI says where it was.
# (The tests' own launchers, e.g. mpi_mpmd, set this same rc.)
rc=0
MPI_SHOW_ON_HANG=()
mpi() {
  local limit=$1 np=$2 started=$SECONDS; shift 2
  set +e
  timeout --kill-after=5 "$limit" mpirun --bind-to none -np "$np" "$@"
  # shellcheck disable=SC2034  # read by the tests that source this file
  rc=$?
  set -e
  # 137 is also mpirun's own status for a SIGKILLed rank: judge a hang by the clock.
  if [ $((SECONDS - started)) -ge "$limit" ]; then
    local file
    for file in ${MPI_SHOW_ON_HANG[@]+"${MPI_SHOW_ON_HANG[@]}"}; do
      echo "--- the last lines of $(basename "$file"):" >&9
      tail -n 40 "$file" >&9 2>/dev/null || true
    done
    fail "mpirun hung past ${limit}s: $*"
  fi
}

# any_file DIR PATTERN...: true when a name in DIR matches one of the glob PATTERNs (dot files
# aside), e.g. the drained-* or resumed-* file an admission action leaves.
any_file() {
  local dir=$1 pattern
  shift
  for pattern in "$@"; do
    compgen -G "$dir/$pattern" >/dev/null && return 0
  done
  return 1
}

validate() { "$PY" "$IBGPU_SOURCE_DIR/tests/tools/validate_json.py" "$IBGPU_SOURCE_DIR/reports/schema/report.schema.json" "$@"; }

# check_report FILE CASE [ARG...]: CASE of the test's own checks (NAME_test.py beside NAME_test.sh)
# on FILE (the report; burn_in_test.py reads a JSON Lines stream), with the ARGs; its assert
# statements fail the test. Values the shell knows arrive as ARGs, never pasted into Python source.
check_report() { "$PY" "${0%.sh}.py" "$2" "$1" "${@:3}"; }
