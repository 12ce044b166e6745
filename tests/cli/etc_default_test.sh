#!/bin/bash
# /etc/default/ibgpu as the package installs it (packaging/default/ibgpu) documents exactly the
# settings its readers take from it: the Slurm health check's and burn-in job's `settings=(...)`
# lists and the variables ibgpu-check.service expands. Each setting is a commented-out line of its
# own under a comment saying what it does, and the file with every setting uncommented is still
# what both readers parse: bash (which sources it) and systemd's EnvironmentFile= (VAR=value lines).
source "$(dirname "$0")/lib.sh"
src=$IBGPU_SOURCE_DIR
conf=$src/packaging/default/ibgpu

# settings_of SCRIPT: the names in its settings=(...) list, one per line.
settings_of() { sed -n '/^settings=(/,/)/p' "$1" | tr -d '()' | sed 's/^settings=//' | tr ' ' '\n' | grep -E '^[A-Z_]+$'; }
read_by=$( {
  settings_of "$src/ci/slurm/healthcheck.sh"
  settings_of "$src/ci/slurm/burn-in.sbatch"
  # The service's own expansions ($VAR and ${VAR}); systemd's STATE_DIRECTORY and the like are not settings.
  grep -E '^(Exec|Environment=)' "$src/packaging/systemd/ibgpu-check.service.in" | grep -oE '[$][{]?[A-Z_]+' | tr -d '{$'
} | sort -u)
[ "$(wc -l <<<"$read_by")" -ge 10 ] || fail "only these settings are read: $(xargs <<<"$read_by")"
grep -qx IBGPU_CHECK_ARGS <<<"$read_by" || fail "nothing reads IBGPU_CHECK_ARGS"
documented=$(sed -nE 's/^#?([A-Z_]+)=.*/\1/p' "$conf" | sort)
[ "$(sort -u <<<"$documented")" = "$documented" ] || fail "a setting appears twice: $(uniq -d <<<"$documented" | xargs)"
[ "$documented" = "$read_by" ] ||
  fail "/etc/default/ibgpu documents $(xargs <<<"$documented"); the scripts and the service read $(xargs <<<"$read_by")"

# Each setting under a comment of its own; no line of another shape.
prev=""
while IFS= read -r line; do
  case $line in
    "" | "# "* | "#") ;;
    \#[A-Z_]*=* | [A-Z_]*=*)
      [[ $prev == "# "* ]] || fail "no comment says what this does: $line"
      [[ $line != *" #"* ]] || fail "a comment after a value (systemd would read it as the value): $line"
      ;;
    *) fail "neither a comment nor a VAR=value line: $line" ;;
  esac
  prev=$line
done <"$conf"

# Every setting uncommented: bash reads each value as written.
sed -E 's/^#([A-Z_]+=)/\1/' "$conf" >"$WORK/all"
(
  set -u
  export SLURMD_NODENAME=node1  # as the health check sets it while reading the file
  # shellcheck source=/dev/null
  . "$WORK/all"
  [ "$IBGPU_CHECK_ARGS" = "--skip gpu.cuda" ] || fail "IBGPU_CHECK_ARGS reads as '$IBGPU_CHECK_ARGS'"
  [ "$IBGPU_PROFILE" = hgx-h100-ndr ] || fail "IBGPU_PROFILE reads as '$IBGPU_PROFILE'"
) || exit 1
bash -n "$conf" || fail "the file does not parse in bash"
echo "/etc/default/ibgpu: ok ($(wc -l <<<"$documented") settings)"
