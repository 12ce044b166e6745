#!/bin/bash
# The conventions of a good CLI, asserted on the real binary without a launcher: a misspelt
# command gets a suggestion, '-' reads stdin, two outputs on stdout are refused, each command's
# help holds its own options with readable defaults and ranges, a broken report is named by its
# place, an --hca the host lacks is refused up front, nothing found is not healthy, and a host
# without a driver is told so.
source "$(dirname "$0")/lib.sh"
export IBGPU_HOSTNAME=n1  # the host name the messages carry
FIXTURES="$DATA/sysfs"

# expect_usage MESSAGE ARGS...: exit 64 and exactly one line on stderr, "ibgpu: MESSAGE".
expect_usage() {
  local message=$1
  shift
  run "$@"
  [ "$rc" -eq 64 ] || fail "ibgpu $* exited $rc, not 64: $(cat "$WORK/err")"
  [ "$(cat "$WORK/err")" = "ibgpu: $message" ] ||
    fail "ibgpu $*: expected 'ibgpu: $message', got: $(cat "$WORK/err")"
}

# 1. An unknown command: the close ones are suggested, nothing when nothing is close.
expect_usage "unknown command 'chek'; did you mean 'check'?" chek
expect_usage "unknown command 'inventroy'; did you mean 'inventory'?" inventroy --sizes 8
expect_usage "unknown command 'rep'; did you mean 'report'?" rep out.json
expect_usage "unknown command 'probe latt'; did you mean 'probe lat'?" probe latt --sizes 8
expect_usage "unknown command 'xyzzy' (ibgpu --help lists them)" xyzzy
expect_usage "unknown command 'probe frobnicate' (ibgpu probe --help lists them)" probe frobnicate
# An option the command does not take: the close ones, or where to look; a bare `ibgpu` lists
# the commands; a list and a sweep of sizes together, an unknown profile (the names there are
# listed) and an environment value ibgpu does not take are refused before anything runs.
expect_usage "unknown option '--loopbak' of 'check'; did you mean '--loopback'?" check --loopbak
expect_usage "unknown option '--profil' of 'check'; did you mean '--profile'?" check --json "$WORK/x.json" --profil cpu
expect_usage "unknown option '--verison'; did you mean '--version'?" --verison
expect_usage "unknown option '--frobnicate' of 'probe' (ibgpu probe --help lists them)" probe --frobnicate
expect_usage "--sizes with --max: give a list (--sizes) or a sweep (--min and --max), not both" \
  check --sizes 1M --max 8M
# --detect SLOW@POWER: a target instead of a budget, never both; each part a fraction or a percentage.
expect_usage "--budget excludes --detect" check --detect 20%@0.95 --budget 1m
expect_usage "--pairs excludes --detect" check --detect 20%@0.95 --pairs quick
expect_usage "--detect 20@0.95: the slowdown must lie between 0 and 1 (0% and 100%)" check --detect 20@0.95
expect_usage "--detect 20%: expected SLOW@POWER, e.g. 20%@0.95" check --detect 20%
expect_usage "--detect 20%@high: the power is not a number (e.g. 20%@0.95)" check --detect 20%@high
run
[ "$rc" -eq 64 ] || fail "a bare ibgpu exited $rc, not 64"
if ! grep -q "^Usage: ibgpu \[OPTIONS\] SUBCOMMAND" "$WORK/err" || ! grep -q "^  check  " "$WORK/err"; then
  fail "a bare ibgpu does not list the commands: $(cat "$WORK/err")"
fi
run check --profile hgx --allreduce off
[ "$rc" -eq 64 ] || fail "an unknown profile: exit $rc, not 64"
grep -q "no profile of that name (profiles: a100-hdr, cpu, gb200-nvl72-tray, gb300-nvl72-tray, generic, hgx-b200-ndr, hgx-b300-xdr, hgx-h100-ndr, hgx-h200-ndr;" "$WORK/err" ||
  fail "an unknown profile does not list the shipped ones: $(cat "$WORK/err")"
expect_usage "--json: '$WORK' is a folder: give a file path" check --profile cpu --json "$WORK"
expect_usage "--json: '$WORK/none/r.json': no folder $WORK/none" check --profile cpu --json "$WORK/none/r.json"
IBGPU_PROGRESS=bogus expect_usage "IBGPU_PROGRESS='bogus': expected terminal, plain or off (or unset)" \
  check --profile cpu
run chek --json "$WORK/usage.json"
python3 - "$WORK/usage.json" <<'EOF' || fail "no JSON usage error for an unknown command"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["error"] == {"kind": "usage", "message": "unknown command 'chek'; did you mean 'check'?"}, doc
assert doc["summary"]["exit_code"] == 64, doc
EOF

# 2. `report -` reads stdin, as a file would render; bounded like a file.
set +e
"$IBGPU" report - <"$GOLDEN/report.json" >"$WORK/out" 2>"$WORK/err"
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "report - exited $rc: $(cat "$WORK/err")"
cmp -s "$WORK/out" "$GOLDEN/report.table.txt" || fail "report - differs from the golden table"
set +e
"$IBGPU" report --compare "$DATA/runs/before.json" - <"$DATA/runs/after.json" >"$WORK/out" 2>"$WORK/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "report --compare OLD - exited $rc: $(cat "$WORK/err")"
cmp -s "$WORK/out" "$GOLDEN/compare.table.txt" || fail "report --compare OLD - differs from the golden comparison"
expect_usage "stdin ('-') can be read once: give files" report - -
set +e
printf '{"schema_version": 1,' | "$IBGPU" report - >"$WORK/out" 2>"$WORK/err"
rc=$?
set -e
[ "$rc" -eq 64 ] || fail "cut JSON on stdin exited $rc"
[ "$(cat "$WORK/err")" = "ibgpu: stdin: not JSON: line 1, column 22: unexpected end of input; expected string literal (in an object key)" ] ||
  fail "cut JSON on stdin: $(cat "$WORK/err")"
# Endless input is cut at the limit (1 GiB), never read to its end.
set +e
timeout 60 "$IBGPU" report - </dev/zero >"$WORK/out" 2>"$WORK/err"
rc=$?
set -e
[ "$rc" -eq 64 ] || fail "report - </dev/zero exited $rc"
[ "$(cat "$WORK/err")" = "ibgpu: stdin: more than the 1024 MiB this reads" ] || fail "report - </dev/zero: $(cat "$WORK/err")"

# 3. Two outputs aimed at stdout are refused before anything runs; one on stdout, one in a file is fine.
expect_usage "--json - and --format html both write to stdout: give --json a FILE, or leave out --format" \
  inventory --json - --format html --sysfs-root "$FIXTURES/empty"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["error"]["kind"] == "usage", d' "$WORK/out" ||
  fail "--json - with --format: stdout is not the JSON usage error: $(cat "$WORK/out")"
expect_usage "--json - and --format table both write to stdout: give --json a FILE, or leave out --format" \
  probe lat --json - --format table
expect_usage "--json - and --output - both write to stdout: give one of them a FILE" \
  report --compare "$DATA/runs/before.json" "$DATA/runs/after.json" --json - --output -
expect_usage "--format is for rendering reports; --compare prints a table (and JSON with --json)" \
  report --compare "$DATA/runs/before.json" "$DATA/runs/after.json" --format html
expect_usage "--jsonl needs a file name: the stream of rounds is not written to stdout" \
  burn-in --duration 10s --jsonl -
expect_usage "burn-in needs --duration, --rounds or both: how long to keep running rounds" \
  burn-in --jsonl "$WORK/never.jsonl"
expect_usage "--rounds: '0' is out of range: a whole number from 1 to 1000000" burn-in --rounds 0 --jsonl "$WORK/never.jsonl"
[ ! -e "$WORK/never.jsonl" ] || fail "burn-in refused for its options created its --jsonl stream"
run report --compare "$DATA/runs/before.json" "$DATA/runs/after.json" --json - --output "$WORK/compare.txt"
[ "$rc" -eq 1 ] || fail "--compare --json - --output FILE exited $rc: $(cat "$WORK/err")"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["changed"] is True' "$WORK/out" ||
  fail "--compare --json -: stdout is not the comparison's JSON"
cmp -s "$WORK/compare.txt" "$GOLDEN/compare.table.txt" || fail "--compare --json - --output FILE: the table is not in FILE"

# 4. Each command's help: its own options, defaults, readable ranges.
run probe lat --help
[ "$rc" -eq 0 ] || fail "probe lat --help exited $rc"
cp "$WORK/out" "$WORK/lat.help"
! grep -qE -- "--window|--tx-depth" "$WORK/lat.help" || fail "probe lat --help lists bandwidth options"
grep -q -- "Message sizes, e.g. 8,64K,8M (default: 8)" "$WORK/lat.help" || fail "probe lat --help: no default size"
grep -q -- "Timed iterations per size (default: 1000; 0: the default)" "$WORK/lat.help" || fail "probe lat --help: no default iterations"
grep -qE -- "--timeout FLOAT:FLOAT in \[0\.1, 86400\]=60" "$WORK/lat.help" || fail "probe lat --help: the timeout's range or default"
run probe bw --help
grep -q -- "(default: 64K,1M,8M)" "$WORK/out" || fail "probe bw --help: no default sizes"
grep -qE -- "--window INT:INT >= 1=64" "$WORK/out" || fail "probe bw --help: --window's range and default"
grep -q -- "(default: fitted per size to a byte budget; 0: the default)" "$WORK/out" || fail "probe bw --help: iterations"
run check --help
grep -q -- "(default: bandwidth 1M,8M, latency 8)" "$WORK/out" || fail "check --help: default sizes"
grep -q -- "(default: bandwidth fitted per size to a byte budget, latency 1000; 0: the default)" "$WORK/out" ||
  fail "check --help: default iterations"
for cmd in check burn-in inventory "probe bw" "probe lat" "probe list" allreduce report simulate; do
  # shellcheck disable=SC2086  # "probe bw" is two words
  run $cmd --help
  [ "$rc" -eq 0 ] || fail "$cmd --help exited $rc"
  ! grep -qE "e\+308|179769|NONNEGATIVE|POSITIVE" "$WORK/out" || fail "$cmd --help has an unreadable range: $(grep -E "e\+308|NONNEG|POSITIVE" "$WORK/out")"
done
expect_usage "--iters: '-1' is out of range: a whole number of 0 or more" probe lat --iters -1
expect_usage "--window: 'nan' is not a whole number" probe bw --window nan
expect_usage "--timeout: '0' is out of range: a number from 0.1 to 86400" inventory --timeout 0

# 5. A broken report is named by its file, its place and what was expected; never the JSON library's words.
python3 - "$GOLDEN/report.json" "$WORK" <<'EOF'
import json, sys
good, work = sys.argv[1], sys.argv[2]
def broken(name, change):
    d = json.load(open(good))
    change(d)
    json.dump(d, open(f"{work}/{name}.json", "w"))
broken("null_status", lambda d: d["probes"][1].__setitem__("status", None))
broken("no_exit_code", lambda d: d["summary"].pop("exit_code"))
broken("number_id", lambda d: d["verdicts"][0]["entity"].__setitem__("id", 5))
broken("host_array", lambda d: d.__setitem__("hosts", [[]]))
EOF
expect_usage "$WORK/null_status.json: at /probes/1/status: expected a string, found null" report "$WORK/null_status.json"
expect_usage "$WORK/no_exit_code.json: at /summary: missing member 'exit_code'" report "$WORK/no_exit_code.json"
expect_usage "$WORK/number_id.json: at /verdicts/0/entity/id: expected a string, found a number" \
  report --compare "$WORK/number_id.json" "$DATA/runs/after.json"
expect_usage "$WORK/host_array.json: at /hosts/0: expected an object, found an array" report "$WORK/host_array.json"
printf '{"schema_version": 1,\n  "tool": [1, 2\n' >"$WORK/cut.json"
expect_usage "$WORK/cut.json: not JSON: line 3, column 1: unexpected end of input; expected ']' (in an array)" \
  report "$WORK/cut.json"

# 6. An --hca the host does not have: refused before anything runs, naming what it has.
expect_usage "--hca nosuch:1: no such RDMA device on host n1 (it has mlx5_0, mlx5_1, mlx5_2, mlx5_3, mlx5_4, mlx5_5, mlx5_6, mlx5_7, mlx5_8, mlx5_9, mlx5_10, mlx5_11)" \
  probe lat --sysfs-root "$FIXTURES/hgx-h100" --hca nosuch:1
# check says its plan first; the refusal is its last line, and nothing was probed.
run check --sysfs-root "$FIXTURES/hgx-h100" --hca mlx5_0:2 --json "$WORK/hca.json"
[ "$rc" -eq 64 ] || fail "check --hca mlx5_0:2 exited $rc"
[ "$(tail -1 "$WORK/err")" = "ibgpu: --hca mlx5_0:2: mlx5_0 on host n1 has no port 2 (it has port 1)" ] ||
  fail "check --hca mlx5_0:2: $(cat "$WORK/err")"
! grep -q "local checks" "$WORK/err" || fail "check --hca mlx5_0:2 ran the local checks before refusing"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["error"]["kind"] == "usage" and "probes" not in d, d' \
  "$WORK/hca.json" || fail "check --hca mlx5_0:2: the JSON is not the usage error"
if [ ! -e /sys/class/infiniband ]; then
  # No RDMA stack: nothing new is said, the probe reports what it could not do.
  run probe lat --sysfs-root "$FIXTURES/empty" --hca nosuch:1 --json "$WORK/nohca.json"
  [ "$rc" -eq 3 ] || fail "--hca without an RDMA stack exited $rc, not 3: $(cat "$WORK/err")"
  ! grep -q "no such RDMA device" "$WORK/err" || fail "--hca without an RDMA stack was refused"
else
  echo "note: this host has an RDMA stack: the case without one did not run"
fi

# 7. Nothing found is not healthy.
if [ ! -e /dev/nvidiactl ]; then
  run inventory --sysfs-root "$FIXTURES/empty" --json "$WORK/empty.json"
  [ "$rc" -eq 3 ] || fail "inventory that found nothing exited $rc, not 3"
  grep -q "note: nothing to check: no GPU and no RDMA device found on the host (exit 3, not healthy)" "$WORK/out" ||
    fail "inventory that found nothing does not say so: $(cat "$WORK/out")"
  grep -q "^Summary: unknown, exit 3" "$WORK/out" || fail "inventory that found nothing: $(tail -1 "$WORK/out")"
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["summary"]; assert (s["state"], s["exit_code"]) == ("unknown", 3), s' \
    "$WORK/empty.json" || fail "inventory that found nothing: the JSON summary"
else
  echo "note: this host has an NVIDIA driver: the empty inventory did not run"
fi
run inventory --sysfs-root "$FIXTURES/hgx-h100"
[ "$rc" -eq 0 ] || fail "inventory of the HGX H100 tree exited $rc: $(tail -3 "$WORK/out")"
! grep -q "nothing to check" "$WORK/out" || fail "inventory of the HGX H100 tree says nothing to check"

# 8. A host without an NVIDIA driver is told that, not a CUDA version complaint.
if ! ldconfig -p | grep -q 'libcuda\.so\.1 ' && [ ! -e /dev/nvidiactl ]; then
  run probe list --json -
  python3 - "$WORK/out" <<'EOF' || fail "probe list: the CUDA probes' reason"
import json, sys
kinds = {k["id"]: k for k in json.load(open(sys.argv[1]))["kinds"]}
for id in ("gpu.cuda.copy_bw", "gpu.cuda.mem_bw", "gpu.cuda.compute"):
    assert kinds[id]["why_not"] == "no NVIDIA driver on this host (libcuda.so.1 not found)", kinds[id]
EOF
  run check --sysfs-root "$FIXTURES/empty" --allreduce off --json "$WORK/check.json"
  [ "$rc" -eq 3 ] || fail "check without a driver exited $rc"
  python3 - "$WORK/check.json" <<'EOF' || fail "check: the CUDA probes' reason"
import json, sys
cuda = [p for p in json.load(open(sys.argv[1]))["probes"] if p["id"].startswith("gpu.cuda.")]
assert len(cuda) == 3, cuda
for p in cuda:
    assert p["status"] == "skipped" and p["reason"] == "no NVIDIA driver on this host (libcuda.so.1 not found)", p
EOF
else
  echo "note: libcuda.so.1 is installed here: the driverless wording did not run"
fi
# The version names the commit the binary was built from (read at every build, not at configure
# time: a rebuild after a commit must not keep the old one); where the source is not a git checkout
# (a release tarball) it says unknown.
if head=$(git -C "$IBGPU_SOURCE_DIR" describe --always --abbrev=12 2>/dev/null); then
  run --version
  [ "$rc" -eq 0 ] || fail "ibgpu --version exited $rc"
  grep -q "^ibgpu [0-9.]* (git ${head}[-,]" "$WORK/out" ||
    fail "ibgpu --version does not name HEAD ($head), rebuild after a commit: $(cat "$WORK/out")"
fi
echo "cli conventions: ok"
