#!/bin/bash
# A VM lane whose setup fails says in its last line which step failed and why. The kernel package
# is made unavailable (a meta package that does not exist); the cache folder is new, so no kernel
# fetched before can stand in for it.
set -euo pipefail
root=${IBGPU_SOURCE_DIR:?repository root}
cd "$root"
fail() { echo "FAIL: $*" >&2; exit 1; }
dir=$(mktemp -d /var/tmp/ibgpu-vm-setup-test.XXXXXX)
trap 'rm -rf "$dir"' EXIT

rc=0
out=$(IBGPU_VM_DIR=$dir IBGPU_VM_KERNEL_META=ibgpu-no-such-kernel \
        bash -c '. ci/vm/setup_or_fail.sh; vm_setup_or_fail lane' 2>&1) || rc=$?
echo "$out"
[ "$rc" -eq 1 ] || fail "setup with no kernel package exited $rc, expected 1"
last=$(tail -n1 <<<"$out")
want="lane: FAIL: ci/vm/setup failed: step 2 (kernel package): no kernel package: 'apt-cache depends ibgpu-no-such-kernel' names none and $dir/debs has none"
[ "$last" = "$want" ] || fail "last line: '$last', expected '$want'"
echo "setup failure names its step: ok"
