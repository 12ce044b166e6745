#!/bin/bash
# Usage and configuration errors across namespace hosts: one clear line, exit 64 from the job,
# and no report or partial file left behind.
source "$(dirname "$0")/lib.sh"
hosts_up 3

no_files_in() {  # DIR: nothing but what the test put there itself
  local left
  left=$(find "$1" -mindepth 1 -maxdepth 1 ! -name marker -printf '%f\n' 2>/dev/null | sort || true)
  [ -z "$left" ] || fail "files left in $1: $left"
}

# Unknown flag: every rank refuses it before MPI starts measuring. With --json the error
# document is the only file written (complete: written atomically), never a partial report.
mkdir "$WORK/unknown" && touch "$WORK/unknown/marker"
ibgpu_on_hosts 60 check --transport mpi --no-such-flag --json "$WORK/unknown/report.json" \
  >"$WORK/unknown.out" 2>"$WORK/unknown.err"
[ "$rc" -eq 64 ] || fail "unknown flag: exit $rc, expected 64"
grep -q -- "--no-such-flag" "$WORK/unknown.err" || fail "unknown flag: error does not name it: $(cat "$WORK/unknown.err")"
# One line per rank at most, all the same message. OpenMPI's rsh launcher may add a warning of
# its own ("plm:rsh: Warning: setpgid(...) failed in parent"): it sets each daemon's process group
# from both sides, and the parent's call races the daemon's exec; not ibgpu's output.
ours=$(grep -v 'plm:rsh: Warning: setpgid(' "$WORK/unknown.err" || true)
[ "$(sort -u <<<"$ours" | grep -c .)" -eq 1 ] || fail "unknown flag: unclear stderr: $(cat "$WORK/unknown.err")"
if [ -f "$WORK/unknown/report.json" ]; then
  validate "$WORK/unknown/report.json" >/dev/null
  check_report "$WORK/unknown/report.json" unknown_flag
  mv "$WORK/unknown/report.json" "$WORK/unknown.doc.json"
fi
no_files_in "$WORK/unknown"

# Unwritable output path (its parent is a file: refused even for root), checked before any probe.
mkdir "$WORK/unwritable" && touch "$WORK/unwritable/marker"
target=$WORK/unwritable/marker/report.json
ibgpu_on_hosts 60 check --transport mpi --sizes 8 --iters 5 --json "$target" >"$WORK/unwritable.out" 2>"$WORK/unwritable.err"
[ "$rc" -eq 64 ] || fail "unwritable --json: exit $rc, expected 64"
grep -q -- "$target" "$WORK/unwritable.err" || fail "unwritable --json: error does not name the path: $(cat "$WORK/unwritable.err")"
! grep -q "^Network" "$WORK/unwritable.out" || fail "unwritable --json: probes ran anyway"
no_files_in "$WORK/unwritable"

# A malformed profile.
if true; then
  mkdir "$WORK/profile" && touch "$WORK/profile/marker"
  printf 'this is { not a profile\n' >"$WORK/profile.bad"
  ibgpu_on_hosts 60 check --transport mpi --profile "$WORK/profile.bad" --json "$WORK/profile/report.json" \
    >"$WORK/profile.out" 2>"$WORK/profile.err"
  [ "$rc" -eq 64 ] || fail "malformed profile: exit $rc, expected 64"
  grep -q "profile" "$WORK/profile.err" || fail "malformed profile: unclear error: $(cat "$WORK/profile.err")"
  # With --json the error document may be written (complete, atomically); nothing else.
  if [ -f "$WORK/profile/report.json" ]; then
    check_report "$WORK/profile/report.json" profile_error
    mv "$WORK/profile/report.json" "$WORK/profile.doc"
  fi
  no_files_in "$WORK/profile"
  echo "malformed profile: ok"
else
  echo "malformed profile: not tested, \`ibgpu check\` has no --profile on this branch (TODO)"
fi
echo "usage errors across hosts: ok"
