#!/usr/bin/env bash
# ibgpu's MPI probes beside plain loops of the calls the MPI benchmarks time
# (ci/bench/plain_mpi.cpp), same ranks, sizes and iterations, on one host:
#   lat        ibgpu probe lat --transport mpi   vs  blocking MPI_Send/MPI_Recv ping-pong (osu_latency)
#   bw         ibgpu probe bw --transport mpi    vs  a window of MPI_Isend into one buffer (osu_bw)
#   allreduce  ibgpu allreduce --backend mpi     vs  a blocking MPI_Allreduce loop
#     ci/bench/mpi_vs_plain.sh                    # all three, binary build/ibgpu
#     KINDS=allreduce NP=8 ROUNDS=5 AR_SIZES="4K 1M 16M" ci/bench/mpi_vs_plain.sh
# Each round runs both sides, alternating which goes first, so a drift of a shared machine hits
# both. The ratio is ibgpu / plain per round (latency and all-reduce time: above 1 = ibgpu
# slower; bandwidth: below 1 = ibgpu slower); the summary gives the median ratio per size with
# the lowest and highest round. Latency compares means (ibgpu's mean leaves out the 2 largest
# samples, as perftest does); bandwidth runs ibgpu's default iteration count on both sides.
# Environment: IBGPU (build/ibgpu), KINDS ("lat bw allreduce"), ROUNDS (5), NP (all-reduce
# ranks, 4), LAT_ITERS (10000), LAT_WARMUP (1000), LAT_SIZES ("8"), BW_SIZES ("64K 1M 8M"),
# WINDOW (64), AR_ITERS (by size: 64 MiB of calls, 50 to 2000), AR_WARMUP (5), AR_SIZES
# ("1K 64K 1M 16M"), BIND (mpirun --bind-to: none), PRIO (a command both sides run under, e.g.
# "chrt -r 10" on a machine busy with other work: 2 ranks at a real-time priority no longer wait
# for the CPU; not for NP above the cores), PLAIN_THREADS (the plain side asks MPI_Init_thread for
# this level, single|funneled|serialized|multiple, instead of MPI_Init: what the thread level alone
# costs). Each all-reduce size is a launch of its own.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
ibgpu=${IBGPU:-build/ibgpu}
[ -x "$ibgpu" ] || { echo "mpi_vs_plain: no ibgpu binary at $ibgpu (set IBGPU)" >&2; exit 1; }
KINDS=${KINDS:-"lat bw allreduce"} ROUNDS=${ROUNDS:-5} NP=${NP:-4}
LAT_ITERS=${LAT_ITERS:-10000} LAT_WARMUP=${LAT_WARMUP:-1000} LAT_SIZES=${LAT_SIZES:-"8"}
BW_SIZES=${BW_SIZES:-"64K 1M 8M"} WINDOW=${WINDOW:-64}
AR_ITERS=${AR_ITERS:-} AR_WARMUP=${AR_WARMUP:-5} AR_SIZES=${AR_SIZES:-"1K 64K 1M 16M"}
BIND=${BIND:-none} PRIO=${PRIO:-} PLAIN_THREADS=${PLAIN_THREADS:-}
read -r -a prio <<<"$PRIO"
threads=()
[ -z "$PLAIN_THREADS" ] || threads=(--threads "$PLAIN_THREADS")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicxx -O2 -std=c++17 -o "$work/plain" ci/bench/plain_mpi.cpp

bytes() {  # "SIZE SIZE ..." -> one byte count a line
  local words s
  read -r -a words <<<"$1"
  for s in "${words[@]}"; do numfmt --from=iec "$s"; done
}
comma() { local IFS=,; echo "$*"; }
# All-reduce iterations for a size: AR_ITERS, or by default 64 MiB of calls, 50 to 2000, so a small
# size's timed loop is not a few microseconds that one interrupt decides.
ar_iters() {
  if [ -n "$AR_ITERS" ]; then echo "$AR_ITERS"; return; fi
  local n=$((64 * 1024 * 1024 / $1))
  [ "$n" -lt 50 ] && n=50
  [ "$n" -gt 2000 ] && n=2000
  echo "$n"
}
mpirun_np() {  # NP COMMAND...
  local np=$1
  shift
  timeout -k 5 600 "${prio[@]}" mpirun --oversubscribe --bind-to "$BIND" -np "$np" "$@"
}

# ROUND KIND: one row "round kind size tool value" per size.
run_plain() {
  local list
  case $2 in
    lat) mapfile -t list < <(bytes "$LAT_SIZES")
         mpirun_np 2 "$work/plain" lat "$LAT_ITERS" "$LAT_WARMUP" "${list[@]}" "${threads[@]}" ;;
    bw) mapfile -t list < <(bytes "$BW_SIZES")
        mpirun_np 2 "$work/plain" bw 0 0 "${list[@]}" --window "$WINDOW" "${threads[@]}" ;;
    allreduce) mapfile -t list < <(bytes "$AR_SIZES")
               for size in "${list[@]}"; do
                 mpirun_np "$NP" "$work/plain" allreduce "$(ar_iters "$size")" "$AR_WARMUP" "$size" "${threads[@]}"
               done ;;
  esac | awk -v r="$1" -v k="$2" '{ print r, k, $1, "plain", $2 }' >>"$work/rows"
}
# FILE ROUND KIND: the rows of an ibgpu report.
rows() {
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
path, rnd, kind = sys.argv[1:]
probe, metric, field = {'lat': ('net.mpi.lat', 'lat_us', 'mean'), 'bw': ('net.mpi.bw', 'bw_avg_GBps', 'value'),
                        'allreduce': ('collective.mpi.all_reduce', 'time_us_avg', 'value')}[kind]
for p in json.load(open(path))['probes']:
    if p['id'] == probe and p['status'] == 'ok':
        m = p['metrics'][metric]
        print(rnd, kind, p['params']['size_B'], 'ibgpu', m[field] if isinstance(m, dict) else m)
PY
}
run_ibgpu() {
  local list size
  case $2 in
    lat) mapfile -t list < <(bytes "$LAT_SIZES")
         mpirun_np 2 "$ibgpu" probe lat --transport mpi --sizes "$(comma "${list[@]}")" --iters "$LAT_ITERS" \
           --warmup "$LAT_WARMUP" --json "$work/ibgpu.json" ;;
    bw) mapfile -t list < <(bytes "$BW_SIZES")
        mpirun_np 2 "$ibgpu" probe bw --transport mpi --sizes "$(comma "${list[@]}")" --window "$WINDOW" \
          --json "$work/ibgpu.json" ;;
    allreduce) mapfile -t list < <(bytes "$AR_SIZES")
               for size in "${list[@]}"; do
                 mpirun_np "$NP" "$ibgpu" allreduce --backend mpi --placement job --mode out-of-place --no-check \
                   --sizes "$size" --iters "$(ar_iters "$size")" --warmup "$AR_WARMUP" --json "$work/ibgpu.json" &&
                   rows "$work/ibgpu.json" "$1" "$2" >>"$work/rows"
               done ;;
  esac >/dev/null 2>"$work/ibgpu.err" || { cat "$work/ibgpu.err" >&2; echo "mpi_vs_plain: ibgpu failed ($2, round $1)" >&2; exit 1; }
  [ "$2" = allreduce ] || rows "$work/ibgpu.json" "$1" "$2" >>"$work/rows"
}

: >"$work/rows"
for kind in $KINDS; do
  for round in $(seq 1 "$ROUNDS"); do
    if [ $((round % 2)) -eq 1 ]; then run_plain "$round" "$kind"; run_ibgpu "$round" "$kind"
    else run_ibgpu "$round" "$kind"; run_plain "$round" "$kind"; fi
  done
done

echo "ibgpu's MPI probes vs plain loops of the reference calls, one host, $ROUNDS alternating rounds" \
  "(--bind-to $BIND${PRIO:+, under $PRIO}${PLAIN_THREADS:+, plain side at thread level $PLAIN_THREADS})"
echo "lat: 2 ranks, $LAT_ITERS iterations ($LAT_WARMUP warm-up), mean one-way us; bw: 2 ranks, window $WINDOW," \
  "GB/s; allreduce: $NP ranks, ${AR_ITERS:-50-2000} iterations ($AR_WARMUP warm-up), float sum, out-of-place, us per call"
/usr/bin/python3 - "$work/rows" <<'PY'
import statistics, sys
t = {}
for rnd, kind, size, tool, value in (l.split() for l in open(sys.argv[1])):
    t.setdefault((kind, int(size), int(rnd)), {})[tool] = float(value)
print('%-9s %-6s %10s %12s %12s %8s' % ('kind', 'round', 'size_B', 'plain', 'ibgpu', 'ratio'))
ratios = {}
for (kind, size, rnd) in sorted(t):
    v = t[(kind, size, rnd)]
    if 'plain' in v and 'ibgpu' in v:
        ratio = v['ibgpu'] / v['plain']
        ratios.setdefault((kind, size), []).append(ratio)
        print('%-9s %-6d %10d %12.4f %12.4f %8.3f' % (kind, rnd, size, v['plain'], v['ibgpu'], ratio))
print('median ibgpu/plain (lowest - highest round):')
for (kind, size), r in sorted(ratios.items()):
    print('  %-9s %10d B  %.3f  (%.3f - %.3f, %d rounds)' % (kind, size, statistics.median(r), min(r), max(r), len(r)))
PY
