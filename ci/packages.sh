# shellcheck shell=bash
# ci/packages.sh: the one place that asks dpkg what is installed and installs what is missing.
# Source it from bash; every function is safe under `set -euo pipefail`.
#
#   missing_packages PKG...          prints, one per line, the packages not installed (never fails)
#   install_packages WHO PKG...      installs the missing ones with apt-get (sudo when not root);
#                                    on failure prints the step, apt's last lines, and returns 1
#
# Why a helper: `dpkg-query -W` exits 1 when any package it is asked about is not installed, so a
# pipeline or command substitution around it stops a `set -e` script silently, on exactly the
# fresh machine where the install was needed (ci/vm/setup did that). Here each package is asked
# about on its own, inside a condition, where a non-zero status is an answer, not an error.

missing_packages() {
  local p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      echo "$p"
    fi
  done
  return 0
}

install_packages() {
  local who=$1 sudo="" log rc=0
  shift
  local missing=()
  mapfile -t missing < <(missing_packages "$@")
  [ ${#missing[@]} -gt 0 ] || return 0
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "$who: installing ${missing[*]}"
  log=$(mktemp "${TMPDIR:-/tmp}/ibgpu-apt.XXXXXX")
  if ! $sudo apt-get update -q >"$log" 2>&1; then
    echo "$who: error: step 'apt-get update' failed; its last lines:" >&2
    tail -n 15 "$log" | sed 's/^/    /' >&2
    rm -f "$log"
    return 1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
    "${missing[@]}" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "$who: error: step 'apt-get install ${missing[*]}' failed (exit $rc); its last lines:" >&2
    tail -n 15 "$log" | sed 's/^/    /' >&2
    rm -f "$log"
    return 1
  fi
  rm -f "$log"
  # apt-get can exit 0 and still leave a package out (a virtual name, a held package).
  mapfile -t missing < <(missing_packages "$@")
  if [ ${#missing[@]} -gt 0 ]; then
    echo "$who: error: step 'apt-get install' left ${missing[*]} not installed" >&2
    return 1
  fi
}
