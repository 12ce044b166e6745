# shellcheck shell=bash
# Sourced by the CLI tests: the real binary, without mpirun.
set -euo pipefail
: "${IBGPU:?path of the ibgpu binary}" "${IBGPU_SOURCE_DIR:?repository root}"
DATA="$IBGPU_SOURCE_DIR/tests/data"
# shellcheck disable=SC2034  # read by the tests that source this file
GOLDEN="$DATA/golden"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

exec 9>&2
fail() { echo "FAIL: $*" >&9; exit 1; }

# run ARGS...: runs ibgpu with stdout in $WORK/out and stderr in $WORK/err; sets $rc.
rc=0
run() {
  set +e
  "$IBGPU" "$@" >"$WORK/out" 2>"$WORK/err"
  # shellcheck disable=SC2034  # read by the tests that source this file
  rc=$?
  set -e
}
