#!/bin/bash
# The Slurm recipes and the lane's scripts (ci/slurm) parse as bash, and where
# it is installed they pass shellcheck, run with -x from the repository root as
# ci/lint runs it (so the sourced ci/packages.sh is followed).
# Usage: slurm_scripts_test.sh DIR
set -uo pipefail
dir=${1:?directory of the Slurm recipes}
dir=$(cd "$dir" && pwd)
scripts=("$dir"/*.sh "$dir"/*.sbatch "$dir"/cluster)
status=0
checked=0
for script in "${scripts[@]}"; do
  [ -e "$script" ] || continue
  checked=$((checked + 1))
  if ! bash -n "$script"; then
    echo "FAIL: $script: bash syntax error" >&2
    status=1
  fi
done
if [ "$checked" -lt 2 ]; then
  echo "FAIL: expected burn-in.sbatch and healthcheck.sh in $dir, found $checked script(s)" >&2
  exit 1
fi
if command -v shellcheck >/dev/null 2>&1; then
  (cd "$dir/../.." && shellcheck -x --shell=bash "${scripts[@]}") || status=1
else
  echo "shellcheck not installed: only bash -n was checked"
fi
[ "$status" -eq 0 ] && echo "$checked Slurm recipes: ok"
exit "$status"
