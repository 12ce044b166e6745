#!/bin/bash
# ibgpu runs as root on production nodes: every file it writes replaces only what it created
# (a device, FIFO or socket is written through or refused; a symlink's target is replaced, the
# link kept), and every file it reads back is bounded (devices refused, size and depth capped).
# Each case is the real binary on real files in a temporary directory.
. "$(dirname "$0")/lib.sh"
report=$GOLDEN/report.json

# --- outputs ----------------------------------------------------------------------------------
# /dev/null: written through, still a character device (as root a rename would replace it).
run report "$report" --format markdown --output /dev/null
[ "$rc" -eq 0 ] || fail "--output /dev/null exited $rc: $(cat "$WORK/err")"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
run report --compare "$DATA/runs/before.json" "$DATA/runs/after.json" --json /dev/null
{ [ "$rc" -eq 1 ] && [ -c /dev/null ]; } || fail "--compare --json /dev/null exited $rc: $(cat "$WORK/err")"
# /dev/full: an error naming the device, and the device stays.
run report "$report" --output /dev/full
{ [ "$rc" -ne 0 ] && [ -c /dev/full ]; } || fail "--output /dev/full exited $rc or replaced the device"
grep -q "/dev/full" "$WORK/err" || fail "no word of /dev/full: $(cat "$WORK/err")"

# A symlink: the link stays, its target (in another folder) is replaced, nothing left beside it.
mkdir -p "$WORK/runs"
echo old >"$WORK/runs/x.md"
ln -s runs/x.md "$WORK/latest.md"
run report "$report" --format markdown --output "$WORK/latest.md"
[ "$rc" -eq 0 ] || fail "--output through a symlink exited $rc: $(cat "$WORK/err")"
[ -L "$WORK/latest.md" ] || fail "the symlink was replaced by a file"
cmp -s "$WORK/runs/x.md" "$GOLDEN/report.md" || fail "the symlink's target does not hold the report"
[ -z "$(find "$WORK" -name '.*.tmp.*')" ] || fail "temporary files left: $(find "$WORK" -name '.*.tmp.*')"
# A baseline through a dangling symlink creates the target.
ln -s runs/fleet.json "$WORK/fleet-latest.json"
run report --baseline-out "$WORK/fleet-latest.json" "$DATA/runs/before.json" "$DATA/runs/after.json"
{ [ "$rc" -eq 0 ] && [ -L "$WORK/fleet-latest.json" ] && grep -q baseline_version "$WORK/runs/fleet.json"; } ||
  fail "--baseline-out through a dangling link: rc $rc, $(ls -l "$WORK" "$WORK/runs")"

# A FIFO: its reader gets the report, and it is still a FIFO.
mkfifo "$WORK/pipe"
cat "$WORK/pipe" >"$WORK/from-pipe" &
reader=$!
run report "$report" --format markdown --output "$WORK/pipe"
wait "$reader"
{ [ "$rc" -eq 0 ] && [ -p "$WORK/pipe" ]; } || fail "--output FIFO exited $rc or replaced the FIFO: $(cat "$WORK/err")"
cmp -s "$WORK/from-pipe" "$GOLDEN/report.md" || fail "the FIFO's reader did not get the report"
# A pipe as /proc/self/fd/N (what `--output >(cmd)` passes): written through.
"$IBGPU" report "$report" --format markdown --output /dev/stdout 2>"$WORK/err" | cat >"$WORK/from-stdout"
cmp -s "$WORK/from-stdout" "$GOLDEN/report.md" || fail "--output /dev/stdout into a pipe: $(cat "$WORK/err")"

# A socket and a directory are refused before anything is written (exit 64).
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$WORK/sock"
run report "$report" --output "$WORK/sock"
{ [ "$rc" -eq 64 ] && [ -S "$WORK/sock" ] && grep -q "socket" "$WORK/err"; } ||
  fail "--output socket: rc $rc, $(cat "$WORK/err")"
run report "$report" --output "$WORK/runs"
{ [ "$rc" -eq 64 ] && [ -d "$WORK/runs" ]; } || fail "--output directory: rc $rc"

# Device nodes made here (needs root: mknod): a character device is written through, a block
# device refused; neither is replaced.
if [ "$(id -u)" -eq 0 ]; then
  mknod "$WORK/null" c 1 3
  mknod "$WORK/loop" b 7 200
  run report "$report" --output "$WORK/null"
  { [ "$rc" -eq 0 ] && [ -c "$WORK/null" ]; } || fail "--output to a character device node: rc $rc, $(cat "$WORK/err")"
  run report "$report" --output "$WORK/loop"
  { [ "$rc" -eq 64 ] && [ -b "$WORK/loop" ] && grep -q "block device" "$WORK/err"; } ||
    fail "--output to a block device: rc $rc, $(cat "$WORK/err")"
else
  echo "note: not root: the mknod cases (a character and a block device node) did not run"
fi

# The terminal gone mid-check (`| head`, an ssh session's pipe, a launcher's stdio torn down): the
# writes to stdout and stderr fail, the check goes on, the report is written and the exit code is
# the verdict's (a SIGPIPE would end it with 141 and no report). `true` reads nothing and leaves,
# a second before the check starts.
{ set +e; sleep 1; "$IBGPU" check --profile cpu --sysfs-root "$DATA/sysfs/cx7-ndr" --json "$WORK/gone.json"
  echo $? >"$WORK/gone.rc"; set -e; } 2>&1 | true
{ [ "$(cat "$WORK/gone.rc")" -eq 0 ] && [ -s "$WORK/gone.json" ]; } ||
  fail "check into a closed pipe: exit $(cat "$WORK/gone.rc"), report: $(ls "$WORK"/gone.json 2>&1)"

# --- inputs -----------------------------------------------------------------------------------
# /dev/zero would grow without end; a FIFO would wait: refused at once, exit 64.
for input in /dev/zero /dev/urandom "$WORK/pipe"; do
  start=$(date +%s)
  set +e
  timeout 20 "$IBGPU" report "$input" >"$WORK/out" 2>"$WORK/err"
  rc=$?
  set -e
  [ "$rc" -eq 64 ] || fail "report $input exited $rc (124: it did not stop): $(cat "$WORK/err")"
  grep -q "not a regular file" "$WORK/err" || fail "report $input: unclear error: $(cat "$WORK/err")"
  [ $(( $(date +%s) - start )) -lt 10 ] || fail "report $input took more than 10 s"
done
# 100,000-deep JSON: refused before any parser or recursive walk sees it.
python3 -c 'print("[" * 100000 + "]" * 100000)' >"$WORK/deep.json"
run report "$WORK/deep.json"
{ [ "$rc" -eq 64 ] && grep -q "nested deeper than 64" "$WORK/err"; } || fail "deep JSON: rc $rc, $(cat "$WORK/err")"
python3 -c 'print("{\"schema_version\": 1, \"run\": " + "{\"a\": " * 100000 + "1" + "}" * 100000 + "}")' >"$WORK/deep2.json"
run report "$WORK/deep2.json"
[ "$rc" -eq 64 ] || fail "deep object in a report: rc $rc, $(head -c 300 "$WORK/err")"
# An oversized file (sparse: no disk used) is refused by its size, without reading it.
truncate -s 2G "$WORK/huge.json"
start=$(date +%s)
run report "$WORK/huge.json"
{ [ "$rc" -eq 64 ] && grep -q "over the 1024 MiB" "$WORK/err"; } || fail "oversized report: rc $rc, $(cat "$WORK/err")"
[ $(( $(date +%s) - start )) -lt 10 ] || fail "the oversized report was read"
# Numbers that do not fit: a clear error, not undefined behaviour or a wrapped value.
for bad in '-1e300' '18446744073709551615' '1e400'; do
  sed "s/\"schema_version\": [0-9]*,/\"schema_version\": $bad,/" "$report" >"$WORK/bad.json"
  run report "$WORK/bad.json"
  [ "$rc" -eq 64 ] || fail "schema_version $bad: rc $rc, $(cat "$WORK/err")"
done
# ... in every integer a saved report holds, not only the version (run.ranks was cast from 1e300).
for field in 'r["run"]["ranks"]' 'r["hosts"][0]["ranks"][0]' 'r["probes"][0]["scope"]["ranks"][0]'; do
  python3 - "$report" "$WORK/bad.json" "$field" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3] + " = 1e300")
json.dump(r, open(sys.argv[2], "w"))
PY
  run report "$WORK/bad.json"
  { [ "$rc" -eq 64 ] && grep -q "out of range\|must be an integer" "$WORK/err"; } || fail "$field = 1e300: rc $rc, $(cat "$WORK/err")"
done
echo "host safety: ok"
