#!/usr/bin/env bash
# Lane 4 smoke test, run on the HOST (this is what CTest calls): prepares the Soft-RoCE VM
# (ci/vm/setup, cached) and runs tests/vm/perftest_smoke.sh inside it (ci/vm/run), then checks
# the exit status and the summary the script left in the work folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
vm_dir=${IBGPU_VM_DIR:-$PWD/build/vm}
. ci/vm/setup_or_fail.sh
vm_setup_or_fail run_smoke
export IBGPU_VM_OUT=${IBGPU_VM_OUT:-$vm_dir/smoke}
rc=0
ci/vm/run tests/vm/perftest_smoke.sh || rc=$?
if [ "$rc" -ne 0 ]; then
  echo "run_smoke: FAIL: ci/vm/run tests/vm/perftest_smoke.sh exited with status $rc"
  exit 1
fi
summary=$IBGPU_VM_OUT/perftest.txt
for key in gid_index bw_avg_MBps lat_typical_us; do
  grep -q "^$key=[0-9]" "$summary" 2>/dev/null ||
    { echo "run_smoke: FAIL: $summary lacks $key"; exit 1; }
done
echo "run_smoke: PASS ($(tr '\n' ' ' <"$summary"))"
