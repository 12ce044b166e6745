#!/bin/bash
# ci/packages.sh under `set -euo pipefail`, as every setup script runs it: asking about a package
# that is not installed is an answer, not an error that ends the script (ci/vm/setup once exited
# silently there, before installing anything, on every fresh machine).
set -euo pipefail
root=${1:?repository root}
cd "$root"
. ci/packages.sh
fail() { echo "FAIL: $*" >&2; exit 1; }

# dpkg itself is always installed; the other name cannot be.
got=$(missing_packages dpkg ibgpu-no-such-package dpkg)
[ "$got" = "ibgpu-no-such-package" ] || fail "missing_packages: expected only ibgpu-no-such-package, got '$got'"
got=$(missing_packages dpkg)
[ -z "$got" ] || fail "missing_packages: dpkg reported missing: '$got'"
# Nothing missing: nothing installed, nothing asked of apt.
install_packages packages_test dpkg || fail "install_packages with nothing missing failed"

# No script asks dpkg-query about several packages in one pipeline or substitution again.
bad=$(grep -rn --include='*' -E 'dpkg-query -W[^|]*"\$\{[a-z_]+\[@\]\}"' ci tests 2>/dev/null | grep -v '^tests/ci/packages_test.sh' || true)
[ -z "$bad" ] || fail "dpkg-query over a package list (exits 1 when one is missing): $bad"
echo "ci/packages.sh: ok"
