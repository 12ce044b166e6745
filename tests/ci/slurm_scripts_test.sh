#!/bin/bash
# The Slurm recipes (ci/slurm) parse as bash, and pass shellcheck where it is
# installed. Usage: slurm_scripts_test.sh DIR
set -uo pipefail
dir=${1:?directory of the Slurm recipes}
scripts=("$dir"/*.sh "$dir"/*.sbatch)
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
  shellcheck --shell=bash "${scripts[@]}" || status=1
else
  echo "shellcheck not installed: only bash -n was checked"
fi
[ "$status" -eq 0 ] && echo "$checked Slurm recipes: ok"
exit "$status"
