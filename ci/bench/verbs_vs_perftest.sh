#!/usr/bin/env bash
# ibgpu's verbs probes against perftest on the same Soft-RoCE device. Runs INSIDE the VM:
#   IBGPU_VM_ENV=IBGPU IBGPU=$PWD/build/ibgpu ci/vm/run ci/bench/verbs_vs_perftest.sh
# (ci/bench/run_verbs_bench.sh does that from the host).
#
# Topology (a): rxe0 on dummy0. Each round runs, in alternating order (odd rounds perftest
# first, even rounds ibgpu first, so a drift of the emulated machine hits both alike):
#   perftest  ib_write_bw -s 65536 -n N, ib_write_bw -s 1048576 -n N, ib_write_lat -s 8 -n L
#   ibgpu     probe bw --transport verbs --sizes 64K,1M --iters N   (hosts a and b, both rxe0:1)
#             probe lat --transport verbs --sizes 8 --iters L
# Same device, GID, sizes and iteration counts; send depth 128 and CQ moderation (every 100th
# write up to 8 KiB, every write above) for bandwidth, both defaults. Inline differs: ibgpu inlines
# up to the 220 B it asks for, while perftest turns inline off on devices it does not know (rxe:
# "Max inline data : 0[B]"). perftest's BW average is in MiB/s (converted to GB/s,
# 1e9 B); its latency is t_typical (the median) of half round trips, compared with ibgpu's p50.
# Ratios are ibgpu / perftest for both: bandwidth above 1 = ibgpu measured more; latency above
# 1 = ibgpu measured slower. The table ends with the medians over the rounds.
# perftest's inf/nan (failed clock calibration under TCG) is retried by vm_perftest (lib.sh).
# Absolute numbers under TCG mean little; the ratios are the point.
# Environment: IBGPU, BENCH_ROUNDS (3), BENCH_BW_ITERS (200), BENCH_LAT_ITERS (1000).
# Output: the table on stdout and in $VM_OUT/bench.txt; raw rows in $VM_OUT/bench.tsv.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. ci/vm/lib.sh
[ -d /sys/module/rdma_rxe ] || vm_die "rdma_rxe is not loaded: run this through ci/vm/run"
IBGPU=${IBGPU:-build/ibgpu}
[ -x "$IBGPU" ] || vm_die "no ibgpu binary at $IBGPU (set IBGPU)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe --bind-to none --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo)
OUT=${VM_OUT:-/tmp/bench}
mkdir -p "$OUT"
ROUNDS=${BENCH_ROUNDS:-3}
BW_ITERS=${BENCH_BW_ITERS:-200}
LAT_ITERS=${BENCH_LAT_ITERS:-1000}

vm_rxe_one rxe0 dummy0 192.0.2.1/24 || vm_die "could not set up rxe0"
G=$VM_RXE_GID
tsv=$OUT/bench.tsv
printf 'round\ttest\tsize_B\tperftest\tibgpu\n' >"$tsv"
port=18600
errors=0

# perftest_run NAME FIELD TOOL ARGS...: sets pt to FIELD of the result line, "nan" on failure
# (vm_perftest retries runs that print inf/nan).
perftest_run() {
  local name=$1 field=$2
  shift 2
  port=$((port + 1))
  pt=nan
  if vm_perftest "$name" "$port" "rxe0:$G" "rxe0:$G" 127.0.0.1 "$field" "$@" >&2; then
    pt=$(echo "$VM_PT_LINE" | awk -v f="$field" '{ print $f }')
  else
    errors=$((errors + 1))
  fi
}

# ibgpu_run NAME ARGS...: ibgpu on hosts a and b (both rxe0), JSON in $OUT/NAME.json.
ibgpu_run() {
  local name=$1
  shift
  vm_log "ibgpu $* (hosts a, b on rxe0:1)" >&2
  timeout -k 5 180 "${MPIRUN[@]}" \
    -np 1 -x IBGPU_HOSTNAME=a "$IBGPU" "$@" --transport verbs --hca rxe0:1 --gid-index "$G" --timeout 30 \
      --json "$OUT/$name.json" : \
    -np 1 -x IBGPU_HOSTNAME=b "$IBGPU" "$@" --transport verbs --hca rxe0:1 --gid-index "$G" --timeout 30 \
      >"$OUT/$name.log" 2>&1 || { echo "bench: $name: ibgpu exit $?" >&2; sed 's/^/    | /' "$OUT/$name.log" >&2; return 1; }
}

# ibgpu_value JSON ID SIZE KEY: bw_avg_GBps or lat_us.p50 of the ok probe ID at SIZE, or "nan".
ibgpu_value() {
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
path, pid, size, key = sys.argv[1:5]
try:
    r = json.load(open(path))
except (OSError, ValueError):
    print("nan"); sys.exit()
for p in r.get("probes", []):
    if p.get("id") == pid and p.get("params", {}).get("size_B") == int(size) and p.get("status") == "ok":
        v = p["metrics"]
        for k in key.split("."):
            v = v[k]
        print(v); break
else:
    print("nan")
PY
}

mib_to_gb() { awk -v v="$1" 'BEGIN { print (v == "nan") ? "nan" : v * 1048576 / 1e9 }'; }
run_perftest() { # ROUND
  local r=$1
  # Result lines: #bytes #iterations BW-peak BW-average[MiB/s] MsgRate  |  #bytes #iterations
  # t_min t_max t_typical[us] t_avg t_stdev 99% 99.9%
  perftest_run "pt_bw64k_$r" 4 ib_write_bw -s 65536 -n "$BW_ITERS"
  pt_bw64=$(mib_to_gb "$pt")
  perftest_run "pt_bw1m_$r" 4 ib_write_bw -s 1048576 -n "$BW_ITERS"
  pt_bw1m=$(mib_to_gb "$pt")
  perftest_run "pt_lat_$r" 5 ib_write_lat -s 8 -n "$LAT_ITERS"
  pt_lat=$pt
}
run_ibgpu() { # ROUND
  local r=$1
  ibgpu_run "ib_bw_$r" probe bw --sizes 64K,1M --iters "$BW_ITERS" || errors=$((errors + 1))
  ib_bw64=$(ibgpu_value "$OUT/ib_bw_$r.json" net.verbs.write_bw 65536 bw_avg_GBps)
  ib_bw1m=$(ibgpu_value "$OUT/ib_bw_$r.json" net.verbs.write_bw 1048576 bw_avg_GBps)
  ibgpu_run "ib_lat_$r" probe lat --sizes 8 --iters "$LAT_ITERS" || errors=$((errors + 1))
  ib_lat=$(ibgpu_value "$OUT/ib_lat_$r.json" net.verbs.write_lat 8 lat_us.p50)
}

start=$SECONDS
for r in $(seq 1 "$ROUNDS"); do
  vm_log "round $r/$ROUNDS ($([ $((r % 2)) -eq 1 ] && echo "perftest first" || echo "ibgpu first"))"
  if [ $((r % 2)) -eq 1 ]; then run_perftest "$r"; run_ibgpu "$r"; else run_ibgpu "$r"; run_perftest "$r"; fi
  {
    printf '%s\twrite_bw_GBps\t65536\t%s\t%s\n' "$r" "$pt_bw64" "$ib_bw64"
    printf '%s\twrite_bw_GBps\t1048576\t%s\t%s\n' "$r" "$pt_bw1m" "$ib_bw1m"
    printf '%s\twrite_lat_us\t8\t%s\t%s\n' "$r" "$pt_lat" "$ib_lat"
  } >>"$tsv"
done

/usr/bin/python3 - "$tsv" "$BW_ITERS" "$LAT_ITERS" "$SECONDS" "$start" <<'PY' | tee "$OUT/bench.txt"
import math, statistics, sys
path, bw_iters, lat_iters, now, start = sys.argv[1:6]
rows = [l.rstrip("\n").split("\t") for l in open(path)][1:]
def num(s):
    try:
        v = float(s)
        return v if math.isfinite(v) and v > 0 else None
    except ValueError:
        return None
print("ibgpu vs perftest on rxe0 (Soft-RoCE under TCG), same device/GID/sizes; bw iters %s, lat iters %s" % (bw_iters, lat_iters))
print("ratio = ibgpu / perftest (bw: >1 ibgpu measured more; lat: >1 ibgpu measured slower)")
print("bw: GB/s (1e9 B/s), perftest BW average (MiB/s converted); lat: us, perftest t_typical vs ibgpu p50")
print()
print("%-5s  %-14s %8s  %12s  %12s  %7s" % ("round", "test", "size_B", "perftest", "ibgpu", "ratio"))
ratios, vals = {}, {}
for rnd, test, size, pt, ib in rows:
    a, b = num(pt), num(ib)
    ratio = b / a if a and b else None
    key = (test, int(size))
    ratios.setdefault(key, [])
    vals.setdefault(key, ([], []))
    if ratio is not None:
        ratios[key].append(ratio)
    if a: vals[key][0].append(a)
    if b: vals[key][1].append(b)
    print("%-5s  %-14s %8s  %12s  %12s  %7s" % (rnd, test, size, "%.5g" % a if a else "n/a", "%.5g" % b if b else "n/a",
                                               "%.3f" % ratio if ratio else "n/a"))
print()
print("%-5s  %-14s %8s  %12s  %12s  %7s   %s" % ("", "test", "size_B", "perftest med", "ibgpu med", "med ratio", "ratios"))
for key in sorted(ratios, key=lambda k: (k[0], k[1])):
    rs = ratios[key]
    pv, iv = vals[key]
    print("%-5s  %-14s %8d  %12s  %12s  %9s   %s" % (
        "median", key[0], key[1], "%.5g" % statistics.median(pv) if pv else "n/a",
        "%.5g" % statistics.median(iv) if iv else "n/a", "%.3f" % statistics.median(rs) if rs else "n/a",
        " ".join("%.3f" % x for x in rs)))
print()
print("bench: %d rounds in %d s" % (len(rows) // 3, int(now) - int(start)))
PY
if [ "$errors" -ne 0 ]; then
  echo "bench: $errors run(s) failed (see above); their cells are n/a" >&2
  exit 1
fi
