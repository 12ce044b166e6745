# shellcheck shell=bash
# vm_setup_or_fail WHO: runs ci/vm/setup (its output shown as it comes); when it fails, exits 1
# with one line naming the step that failed and why, so the test's last line says it.
# Source from bash with the repository root as the working folder.
vm_setup_or_fail() {
  local who=$1 log why rc
  log=$(mktemp "${TMPDIR:-/tmp}/ibgpu-vm-setup.XXXXXX")
  # The status travels in a file: a pipeline's own status depends on the caller's pipefail.
  { rc=0; ci/vm/setup 2>&1 || rc=$?; echo "$rc" >"$log.rc"; } | tee "$log"
  rc=$(cat "$log.rc" 2>/dev/null || echo 1)
  rm -f "$log.rc"
  if [ "$rc" -eq 0 ]; then
    rm -f "$log"
    return 0
  fi
  why=$(grep -m1 'error: ' "$log" || true)
  rm -f "$log"
  echo "$who: FAIL: ci/vm/setup failed: ${why#*error: }"
  exit 1
}
