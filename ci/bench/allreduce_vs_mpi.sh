#!/usr/bin/env bash
# ibgpu's MPI all-reduce backend against a plain MPI_Allreduce timing loop
# (ci/bench/plain_allreduce.cpp), same ranks, sizes and iterations, in one run:
#   ci/bench/allreduce_vs_mpi.sh                 # binary: build/ibgpu, 4 ranks
#   NP=8 ROUNDS=5 SIZES="4K 1M 16M" ci/bench/allreduce_vs_mpi.sh
# Each round runs both, alternating which goes first, so a drift of a shared machine hits both.
# Both report the per-call time averaged over ranks (nccl-tests' convention); the overhead ratio
# is ibgpu / plain (above 1 = ibgpu's loop slower). The last lines are the medians over rounds.
# Environment: IBGPU (build/ibgpu), NP (4), ROUNDS (3), ITERS (50), WARMUP (5), SIZES (bytes or
# K/M suffixes: "1K 64K 1M 16M").
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
ibgpu=${IBGPU:-build/ibgpu}
[ -x "$ibgpu" ] || { echo "allreduce_vs_mpi: no ibgpu binary at $ibgpu (set IBGPU)" >&2; exit 1; }
NP=${NP:-4} ROUNDS=${ROUNDS:-3} ITERS=${ITERS:-50} WARMUP=${WARMUP:-5}
SIZES=${SIZES:-"1K 64K 1M 16M"}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicxx -O2 -std=c++17 -o "$work/plain" ci/bench/plain_allreduce.cpp

bytes() { numfmt --from=iec "$1"; }
byte_list=()
for s in $SIZES; do byte_list+=("$(bytes "$s")"); done
ibgpu_sizes=$(IFS=,; echo "${byte_list[*]}")
MPIRUN=(mpirun --oversubscribe --bind-to none -np "$NP")

run_plain() {  # ROUND
  timeout -k 5 600 "${MPIRUN[@]}" "$work/plain" "$ITERS" "$WARMUP" "${byte_list[@]}" |
    awk -v r="$1" '{ print r, $1, "plain", $2 }' >>"$work/rows"
}
run_ibgpu() {  # ROUND
  timeout -k 5 600 "${MPIRUN[@]}" "$ibgpu" allreduce --backend mpi --placement job --mode out-of-place \
    --no-check --sizes "$ibgpu_sizes" --iters "$ITERS" --warmup "$WARMUP" --json "$work/ibgpu.json" \
    >/dev/null 2>&1 || { echo "allreduce_vs_mpi: ibgpu failed in round $1" >&2; exit 1; }
  /usr/bin/python3 - "$work/ibgpu.json" "$1" >>"$work/rows" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for p in r['probes']:
    if p['id'] == 'collective.mpi.all_reduce' and p['status'] == 'ok':
        print(sys.argv[2], p['params']['size_B'], 'ibgpu', '%.3f' % p['metrics']['time_us_avg'])
PY
}

: >"$work/rows"
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then run_plain "$round"; run_ibgpu "$round"; else run_ibgpu "$round"; run_plain "$round"; fi
done

echo "ibgpu allreduce --backend mpi vs a plain MPI_Allreduce loop: $NP ranks, $ITERS iterations ($WARMUP warm-up), float sum, out-of-place"
/usr/bin/python3 - "$work/rows" "$ROUNDS" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
t = {}
for rnd, size, tool, us in rows:
    t.setdefault((int(size), int(rnd)), {})[tool] = float(us)
print('%-6s %10s %12s %12s %8s' % ('round', 'size_B', 'plain us', 'ibgpu us', 'ratio'))
ratios = {}
for (size, rnd) in sorted(t, key=lambda k: (k[1], k[0])):
    v = t[(size, rnd)]
    if 'plain' in v and 'ibgpu' in v:
        ratio = v['ibgpu'] / v['plain']
        ratios.setdefault(size, []).append(ratio)
        print('%-6d %10d %12.2f %12.2f %8.3f' % (rnd, size, v['plain'], v['ibgpu'], ratio))
print('median ibgpu/plain per size:')
for size in sorted(ratios):
    print('  %10d B  %.3f  (%d rounds)' % (size, statistics.median(ratios[size]), len(ratios[size])))
PY
