#!/bin/bash
# `ibgpu burn-in` over two "hosts" (MPMD, one rank each): rounds stream to JSON Lines as they
# finish, the summary record and report close the run, and a writer killed mid-run leaves every
# finished round readable.
source "$(dirname "$0")/lib.sh"

burn_in() {  # SECONDS ARGS...: the same ibgpu arguments on hosts ha and hb
  local limit=$1; shift
  mpi_mpmd "$limit" -np 1 -x IBGPU_HOSTNAME=ha "$IBGPU" burn-in "$@" : -np 1 -x IBGPU_HOSTNAME=hb "$IBGPU" burn-in "$@"
}
mpi_mpmd() {  # SECONDS MPIRUN-ARGS...
  local limit=$1 started=$SECONDS; shift
  set +e
  timeout --kill-after=5 "$limit" mpirun --bind-to none "$@"
  rc=$?
  set -e
  [ $((SECONDS - started)) -lt "$limit" ] || fail "mpirun hung past ${limit}s"
}
QUICK=(--sizes 64K --iters 50 --allreduce mpi --timeout 10)

# 1. A short burn-in: several rounds, numbered from 1, then the summary.
burn_in 120 --duration 20s "${QUICK[@]}" --jsonl "$WORK/rounds.jsonl" --json "$WORK/summary.json" >"$WORK/out" 2>"$WORK/err"
validate "$WORK/summary.json"
grep -q "^Burn-in" "$WORK/out" || fail "no Burn-in section in the table"
grep -q "burn-in round 2 done" "$WORK/err" || fail "no progress per round on stderr"
"$PY" - "$WORK/rounds.jsonl" "$WORK/summary.json" "$rc" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[-1] == "", "the stream must end with a complete line"
records = [json.loads(l) for l in lines[:-1]]
rounds = [r for r in records if r["record"] == "round"]
assert len(rounds) >= 2, len(rounds)
assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1)), [r["round"] for r in rounds]
assert records[-1]["record"] == "summary" and records.count(records[-1]) == 1
summary = json.load(open(sys.argv[2]))
assert summary["burn_in"]["rounds"] == len(rounds), (summary["burn_in"]["rounds"], len(rounds))
assert records[-1]["report"]["summary"] == summary["summary"]
assert summary["summary"]["exit_code"] == int(sys.argv[3]), (summary["summary"], sys.argv[3])
# Every round is a full judged check of both hosts.
for r in rounds:
    assert sorted(h["name"] for h in r["report"]["hosts"]) == ["ha", "hb"]
    assert any(p["id"] == "net.mpi.bw" and p["status"] == "ok" for p in r["report"]["probes"])
# This machine has no GPU: each node is unknown in every round, never flaky or healthy.
nodes = {v["entity"]["id"]: v for v in summary["verdicts"] if v["entity"]["kind"] == "node"}
assert sorted(nodes) == ["ha", "hb"] and all(v["state"] == "unknown" for v in nodes.values()), nodes
link = [e for e in summary["burn_in"]["entities"] if e["entity"] == {"kind": "link", "id": "ha<->hb"}]
assert link and link[0]["rounds_judged"] == len(rounds) and link[0]["pass_ratio"] == 1, link
print("burn-in: %d rounds, exit %s" % (len(rounds), sys.argv[3]))
PY

# 2. The writer (rank 0) killed mid-run: the rounds it finished are all there and parse.
rm -f "$WORK/killed.jsonl"
(
  for _ in $(seq 600); do
    n=$(grep -c '"record":"round"' "$WORK/killed.jsonl" 2>/dev/null || true)
    if [ "${n:-0}" -ge 2 ]; then
      for pid in $(pgrep -f "killed.jsonl"); do
        if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=0"; then
          kill -KILL "$pid"; exit 0
        fi
      done
    fi
    sleep 0.1
  done
) &
burn_in 120 --duration 10m "${QUICK[@]}" --jsonl "$WORK/killed.jsonl" --json "$WORK/killed.json" >/dev/null 2>&1
wait
[ "$rc" -ne 0 ] || fail "killed burn-in: exit 0"
"$PY" - "$WORK/killed.jsonl" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
complete = text.split("\n")[:-1]  # a line cut by the kill has no newline yet: not a finished round
records = [json.loads(l) for l in complete]
rounds = [r["round"] for r in records if r["record"] == "round"]
assert len(rounds) >= 2 and rounds == list(range(1, len(rounds) + 1)), rounds
assert not any(r["record"] == "summary" for r in records), "no summary after a kill"
print("killed burn-in: %d finished rounds intact" % len(rounds))
PY

# 3. Bad input: nothing runs, nothing is written, exit 64.
burn_in 60 --duration 10s --jsonl "$WORK/no/such/dir/x.jsonl" "${QUICK[@]}" >/dev/null 2>"$WORK/err"
[ "$rc" -eq 64 ] || fail "unwritable --jsonl: exit $rc, expected 64"
grep -q -- "--jsonl" "$WORK/err" || fail "unwritable --jsonl: the error does not name the option"
burn_in 60 --duration soon --jsonl "$WORK/y.jsonl" >/dev/null 2>&1
[ "$rc" -eq 64 ] || fail "bad --duration: exit $rc, expected 64"
[ ! -e "$WORK/y.jsonl" ] || fail "bad --duration: a stream was created"
echo "burn-in: ok"
