#!/usr/bin/env bash
# Runs ci/bench/verbs_vs_perftest.sh (ibgpu's verbs probes against perftest on rxe0) in the
# Soft-RoCE VM, from the HOST:
#   ci/bench/run_verbs_bench.sh                         # binary: build/ibgpu
#   IBGPU=build-vm/ibgpu BENCH_ROUNDS=5 ci/bench/run_verbs_bench.sh
# Prints the table (also left in $IBGPU_VM_OUT/bench.txt, default $IBGPU_VM_DIR/bench) and exits
# with the script's status. Environment: IBGPU, IBGPU_VM_DIR, IBGPU_VM_OUT, IBGPU_VM_TIMEOUT
# (default 600 s), IBGPU_VM_SMP (default 3), BENCH_ROUNDS, BENCH_BW_ITERS, BENCH_LAT_ITERS (see
# verbs_vs_perftest.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${IBGPU_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
cd "$root"
me=ci/bench/run_verbs_bench
ibgpu=${IBGPU:-build/ibgpu}
{ [ -f "$ibgpu" ] && [ -x "$ibgpu" ]; } || { echo "$me: error: no ibgpu binary at $ibgpu (set IBGPU)" >&2; exit 1; }
ibgpu=$(cd "$(dirname "$ibgpu")" && pwd)/$(basename "$ibgpu")
case $ibgpu in
  /tmp/*|/run/*|/dev/*) echo "$me: error: $ibgpu is under /tmp, /run or /dev, which the VM does not see" >&2; exit 1 ;;
esac
ci/vm/setup
vm_dir=$(cd "${IBGPU_VM_DIR:-$root/build/vm}" && pwd)
export IBGPU=$ibgpu IBGPU_VM_DIR=$vm_dir
export IBGPU_VM_OUT=${IBGPU_VM_OUT:-$vm_dir/bench}
export IBGPU_VM_TIMEOUT=${IBGPU_VM_TIMEOUT:-600}
# Three vCPUs: under Soft-RoCE the "HCA" is the guest's CPU. perftest's write_bw server sleeps
# in a socket read and ibgpu's responder naps between looks for the end-of-run message, but the
# initiators spin on their CQ (both tools), and rxe's packet processing needs a CPU beside them.
export IBGPU_VM_SMP=${IBGPU_VM_SMP:-3}
export IBGPU_VM_ENV="${IBGPU_VM_ENV:-} IBGPU BENCH_ROUNDS BENCH_BW_ITERS BENCH_LAT_ITERS VM_PERFTEST_TRIES"
exec ci/vm/run ci/bench/verbs_vs_perftest.sh
