#!/usr/bin/env bash
# Lane 4, ibgpu's verbs transport, run on the HOST (the CTest entry): prepares the Soft-RoCE VM
# (ci/vm/setup, cached), checks the binary, runs tests/vm/verbs_lane.sh inside the VM
# (ci/vm/run) and exits with its status.
#   bash tests/vm/run_verbs_lane.sh                       # binary: build/ibgpu
#   IBGPU=build-vm/ibgpu bash tests/vm/run_verbs_lane.sh
# From CTest: IBGPU=<path of the built ibgpu> IBGPU_SOURCE_DIR=<repository root>.
# The VM sees the host's root read-only, so the binary runs in there as it is; one under /tmp,
# /run or /dev (which the VM mounts afresh) is copied into the run's work folder first.
# Environment: IBGPU, IBGPU_SOURCE_DIR, IBGPU_VM_DIR, IBGPU_VM_OUT (default
# $IBGPU_VM_DIR/verbs-lane), IBGPU_VM_TIMEOUT (default 420 s), IBGPU_VM_SMP (default 3),
# VERBS_LANE_ONLY (e.g. "a d"), VERBS_DELAY_MS, VERBS_RATE_MBIT, VERBS_F_RUNS, VERBS_F_CLEAN (see
# verbs_lane.sh).
# Exit status: 0 pass, 1 a check failed or the lane could not run (each case says why).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${IBGPU_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
cd "$root"
me=run_verbs_lane
vm_dir=${IBGPU_VM_DIR:-$root/build/vm}
ibgpu=${IBGPU:-build/ibgpu}

{ [ -f "$ibgpu" ] && [ -x "$ibgpu" ]; } ||
  { echo "$me: FAIL: no ibgpu binary at $ibgpu (build it, or set IBGPU)"; exit 1; }
ibgpu=$(cd "$(dirname "$ibgpu")" && pwd)/$(basename "$ibgpu")
libs=$(ldd "$ibgpu" 2>/dev/null || true)
if ! grep -q 'libibverbs\.so' <<<"$libs"; then
  echo "$me: FAIL: $ibgpu is not linked against libibverbs: built without the verbs transport?"
  exit 1
fi
help=$("$ibgpu" probe bw --help 2>/dev/null || true)
grep -q -- '--gid-index' <<<"$help" ||
  { echo "$me: FAIL: $ibgpu probe bw has no --gid-index option"; exit 1; }

# Inside the VM /tmp, /run and /dev are fresh mounts: a checkout or VM folder under them (a CI
# clone in /tmp, say) is invisible there. Stage what the lane needs (its scripts, the schema and
# the binary) in a folder the VM sees, and keep the VM cache there too (IBGPU_VM_STAGE, default
# /var/tmp/ibgpu-vm-<uid>).
under_fresh_mount() { case $1 in /tmp|/tmp/*|/run|/run/*|/dev/*) return 0 ;; esac; return 1; }
if under_fresh_mount "$root" || under_fresh_mount "$vm_dir"; then
  stage=${IBGPU_VM_STAGE:-/var/tmp/ibgpu-vm-$(id -u)}
  under_fresh_mount "$stage" && { echo "$me: FAIL: IBGPU_VM_STAGE $stage is under /tmp, /run or /dev"; exit 1; }
  echo "$me: $root or $vm_dir is under /tmp, /run or /dev, which the VM mounts afresh: staging in $stage"
  rm -rf "$stage/src"
  mkdir -p "$stage/src/tests" "$stage/src/reports" "$stage/bin"
  cp -a ci "$stage/src/ci"
  cp -a tests/vm tests/tools "$stage/src/tests/"
  cp -a reports/schema "$stage/src/reports/"
  cp -a profiles "$stage/src/profiles"  # check --profile by path (part e)
  cp "$ibgpu" "$stage/bin/ibgpu"
  ibgpu=$stage/bin/ibgpu
  root=$stage/src
  cd "$root"
  if under_fresh_mount "$vm_dir"; then vm_dir=$stage/vm; fi
  export IBGPU_VM_DIR=$vm_dir
  unset IBGPU_VM_OUT
fi

. ci/vm/setup_or_fail.sh
IBGPU_VM_DIR=$vm_dir vm_setup_or_fail "$me"
vm_dir=$(cd "$vm_dir" && pwd)
export IBGPU_VM_DIR=$vm_dir
export IBGPU_VM_OUT=${IBGPU_VM_OUT:-$vm_dir/verbs-lane}
export IBGPU_VM_TIMEOUT=${IBGPU_VM_TIMEOUT:-420}
# Three vCPUs: ibgpu's ranks spin while they wait (a pair's responder, an odd round's idle rank),
# and rxe's packet processing needs CPU too. With 2 vCPUs the 3 ranks of topology (b) starve
# each other: unimpaired latencies p50 reached 8-12 ms (10-40 us with 3 vCPUs) and part b took
# twice as long.
export IBGPU_VM_SMP=${IBGPU_VM_SMP:-3}
mkdir -p "$IBGPU_VM_OUT"
case $ibgpu in
  /tmp/*|/run/*|/dev/*)
    # ci/vm/run empties the work folder: put the copy next to it, in a folder of its own.
    mkdir -p "$vm_dir/bin"
    cp "$ibgpu" "$vm_dir/bin/ibgpu.$$"
    trap 'rm -f "$vm_dir/bin/ibgpu.$$"' EXIT
    ibgpu=$vm_dir/bin/ibgpu.$$ ;;
esac
export IBGPU=$ibgpu
export IBGPU_VM_ENV="${IBGPU_VM_ENV:-} IBGPU IBGPU_VM_DIR VERBS_LANE_ONLY VERBS_DELAY_MS VERBS_RATE_MBIT VERBS_F_RUNS VERBS_F_CLEAN"

start=$(date +%s)
rc=0
ci/vm/run tests/vm/verbs_lane.sh || rc=$?
took=$(( $(date +%s) - start ))
case $rc in
  0) echo "$me: PASS in ${took}s (results in $IBGPU_VM_OUT)" ;;
  125) echo "$me: FAIL: the VM could not run the lane (ci/vm/run exit 125, see above)"; exit 1 ;;
  *) echo "$me: FAIL: tests/vm/verbs_lane.sh exited with status $rc after ${took}s (results in $IBGPU_VM_OUT)"; exit 1 ;;
esac
