#!/bin/bash
# The textfile collector path with Debian's real node exporter: a report written by
# `ibgpu report --format prometheus --output DIR/ibgpu.prom` into the collector's directory is
# scraped as written (no scrape error; the run's exit code, a node's action and a latency in
# seconds with their values), and rewritten again and again while the exporter is scraped, every
# scrape sees one whole run (the file is replaced atomically; its temporary name does not end in
# .prom, so the collector never reads it half-written).
source "$(dirname "$0")/lib.sh"
command -v prometheus-node-exporter >/dev/null ||
  fail "prometheus-node-exporter not found: ci/setup installs the prometheus-node-exporter package"
dir=$WORK/textfile
mkdir "$dir"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
prometheus-node-exporter --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$dir" --web.listen-address="127.0.0.1:$port" >"$WORK/exporter.log" 2>&1 &
exporter=$!
trap 'kill "$exporter" 2>/dev/null; wait "$exporter" 2>/dev/null || true; rm -rf "$WORK"' EXIT

# scrape N: N scrapes of the exporter; each must show no scrape error and exactly one run (its
# run_info); prints the last.
scrape() {
  python3 - "$port" "$1" <<'PY'
import sys, time, urllib.request
port, n = sys.argv[1], int(sys.argv[2])
for attempt in range(100):  # the exporter starting
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read()
        break
    except OSError:
        time.sleep(0.1)
for i in range(n):
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    lines = text.splitlines()
    assert "node_textfile_scrape_error 0" in lines, f"scrape {i}: a scrape error:\n{text[-2000:]}"
    runs = [l for l in lines if l.startswith("ibgpu_run_info{")]
    assert len(runs) == 1, f"scrape {i}: {len(runs)} runs: {runs}"
print(text)
PY
}

run report "$GOLDEN/report.json" --format prometheus --output "$dir/ibgpu.prom"
[ "$rc" -eq 0 ] || fail "report --output: exit $rc: $(cat "$WORK/err")"
scrape 1 >"$WORK/scraped" || fail "the exporter's scrape (above)"
for line in 'ibgpu_run_exit_code 2' \
  'ibgpu_node_action{action="drain",node="node2"} 1' \
  'ibgpu_node_action{action="admit_degraded",node="node1"} 1' \
  'ibgpu_entity_state{id="node1/mlx5_1:1",kind="hca_port",state="failed"} 1' \
  'ibgpu_link_latency_seconds{host="node1",peer="node1",peer_rank="1",probe="net.mpi.lat",rank="0",size_bytes="8",stat="p50"} 2.125e-06'; do
  grep -qxF "$line" "$WORK/scraped" || fail "not scraped as written: $line"
done

# Two runs written in turn, 40 times, while the exporter is scraped 60 times.
(
  for i in $(seq 40); do
    if [ $((i % 2)) -eq 0 ]; then report=$GOLDEN/report.json; else report=$DATA/runs/after.json; fi
    "$IBGPU" report "$report" --format prometheus --output "$dir/ibgpu.prom" || exit 1
  done
) &
writer=$!
trap 'kill "$writer" "$exporter" 2>/dev/null; wait "$exporter" 2>/dev/null || true; rm -rf "$WORK"' EXIT
scrape 60 >/dev/null || fail "a scrape while the file was rewritten (above)"
wait "$writer" || fail "a rewrite of the file failed"
leftover=$(find "$dir" -mindepth 1 ! -name ibgpu.prom)
[ -z "$leftover" ] || fail "files left beside ibgpu.prom: $leftover"

# A check writes the text itself beside its JSON (--prometheus), the same text `report` renders
# from that JSON.
run check --profile cpu --allreduce off --quiet --sysfs-root "$DATA/sysfs/empty" --json "$WORK/check.json" \
  --prometheus "$WORK/check-run.prom"
[ "$rc" -eq 0 ] || fail "check --prometheus: exit $rc: $(cat "$WORK/err")"
"$IBGPU" report "$WORK/check.json" --format prometheus >"$WORK/check.prom"
cmp -s "$WORK/check-run.prom" "$WORK/check.prom" || fail "check --prometheus differs from report --format prometheus"
run check --profile cpu --prometheus -
{ [ "$rc" -eq 64 ] && grep -q -- "--format prometheus" "$WORK/err"; } || fail "--prometheus -: exit $rc: $(cat "$WORK/err")"
echo "textfile collector: scraped as written, whole under 40 rewrites; check --prometheus writes the same text"
