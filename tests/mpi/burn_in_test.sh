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
# Two hosts make one pair and one all-reduce: nothing of the run's own to compare them with, so
# the profile's floors judge them (generous ones: the point here is the rounds, not the figures).
cat >"$WORK/floors.toml" <<'TOML'
name = "burn-in-floors"
[network.mpi_bw_GBps]
degraded = 0.001
[network.lat_p50_us]
degraded = 1000000.0
[allreduce.rail_busbw_GBps]
degraded = 0.001
TOML
QUICK=(--sizes 64K --iters 50 --allreduce mpi --timeout 10 --profile "$WORK/floors.toml")

# 1. A short burn-in: several rounds, numbered from 1, then the summary.
burn_in 120 --duration 20s "${QUICK[@]}" --jsonl "$WORK/rounds.jsonl" --json "$WORK/summary.json" >"$WORK/out" 2>"$WORK/err"
validate "$WORK/summary.json"
"$IBGPU_SOURCE_DIR/tests/tools/prometheus_clean.sh" "$WORK/summary.json" || fail "burn-in: the Prometheus text is not clean"
grep -q "^Burn-in" "$WORK/out" || fail "no Burn-in section in the table"
grep -q "burn-in round 2 done" "$WORK/err" || fail "no progress per round on stderr"
check_report "$WORK/rounds.jsonl" finished "$WORK/summary.json" "$rc"

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
check_report "$WORK/killed.jsonl" killed

# 3. Without --jsonl the rounds go to a new stream of their own in the working directory, named on
# stderr (the exit code is the verdict's: this host has none of the profile's GPUs, so 3).
mkdir -p "$WORK/default" && pushd "$WORK/default" >/dev/null
burn_in 120 --rounds 1 "${QUICK[@]}" >/dev/null 2>"$WORK/err"
popd >/dev/null
[ "$rc" -le 3 ] || fail "burn-in without --jsonl: exit $rc: $(grep ibgpu "$WORK/err" | tail -5)"
streams=("$WORK"/default/ibgpu-burn-in-*Z.jsonl)
{ [ "${#streams[@]}" -eq 1 ] && [ -f "${streams[0]}" ]; } || fail "burn-in without --jsonl: streams ${streams[*]}"
grep -q "rounds to $(basename "${streams[0]}")" "$WORK/err" || fail "the default stream is not named on stderr"
{ [ "$(grep -c '"record":"round"' "${streams[0]}")" -eq 1 ] && grep -q '"record":"summary"' "${streams[0]}"; } ||
  fail "the default stream lacks its round or summary: $(cut -c1-80 "${streams[0]}")"

# 4. Bad input: nothing runs, nothing is written, exit 64.
burn_in 60 --duration 10s --jsonl "$WORK/no/such/dir/x.jsonl" "${QUICK[@]}" >/dev/null 2>"$WORK/err"
[ "$rc" -eq 64 ] || fail "unwritable --jsonl: exit $rc, expected 64"
grep -q -- "--jsonl" "$WORK/err" || fail "unwritable --jsonl: the error does not name the option"
burn_in 60 --duration soon --jsonl "$WORK/y.jsonl" >/dev/null 2>&1
[ "$rc" -eq 64 ] || fail "bad --duration: exit $rc, expected 64"
[ ! -e "$WORK/y.jsonl" ] || fail "bad --duration: a stream was created"
echo "burn-in: ok"
