#!/bin/bash
# The HTML report in a real browser: headless Chromium loads pages made by the
# real reporter, and the DOM it built and the pixels it drew are checked.
#  1. the shared fixture report (tests/data/golden/report.json) with a host
#     renamed to markup, rendered by ibgpu_render_report;
#  2. a fleet made by fleet_fixture.py (4 hosts on 2 leaves, bandwidth and
#     latency pairs, an all-reduce sweep, a burn-in with a flaky link) for the
#     sections, the pair counts, the burn-in chart, and the contrast of every
#     state label (computed styles, read by a script in a copy of the page);
#  3. when mpirun is here, `ibgpu probe bw --format html` across 4 hosts (ranks
#     named through IBGPU_HOSTNAME), as an operator would make it;
#  4. and `ibgpu check --format html` of one host (two ranks): no heatmap, what
#     it measured within itself listed. Part 2b: the colour scale, healthy spread.
# Pages and screenshots stay in $IBGPU_BROWSER_OUT. Without Chromium: exit 77.
set -euo pipefail
: "${IBGPU:?path of the ibgpu binary}" "${IBGPU_RENDER:?path of ibgpu_render_report}"
: "${IBGPU_SOURCE_DIR:?repository root}" "${IBGPU_BROWSER_OUT:?folder for pages and screenshots}"
PY=/usr/bin/python3
CHECK=$IBGPU_SOURCE_DIR/tests/browser/check_page.py

chrome=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null; then chrome=$(command -v "$candidate"); break; fi
done
if [ -z "$chrome" ]; then
  echo "SKIP: no chromium binary found (Debian: apt-get install chromium; ci/setup installs it)"
  exit 77
fi

exec 9>&2
fail() { echo "FAIL: $*" >&9; exit 1; }

OUT=$IBGPU_BROWSER_OUT
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# browse LOG ARGS...: headless Chromium with a throwaway profile (as root it
# needs --no-sandbox), under a hard timeout; its chatter goes to LOG.
browse() {
  local log=$1
  shift
  timeout --kill-after=10 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --no-default-browser-check --hide-scrollbars --user-data-dir="$WORK/profile" "$@" 2>"$log"
}

# check_contrast NAME STATES: the computed colours of every state label on NAME.html (read by a
# script in a copy of the page; the page itself has none) against WCAG's 4.5:1.
check_contrast() {
  local name=$1 states=$2 copy=$WORK/$1.styles.html
  "$PY" "$IBGPU_SOURCE_DIR/tests/browser/style_probe.py" "$OUT/$name.html" "$copy" || fail "style_probe.py exited $?"
  browse "$WORK/$name.styles.log" --dump-dom "file://$copy" >"$WORK/$name.styles.dom.html" ||
    fail "chromium --dump-dom $copy exited $?: $(tail -5 "$WORK/$name.styles.log")"
  "$PY" "$CHECK" contrast "$WORK/$name.styles.dom.html" "$states" || fail "$name: a state label is hard to read"
}

# check_in_browser NAME EXPECT.json COLOURS: dumps NAME.html's DOM and takes a screenshot.
check_in_browser() {
  local name=$1 expect=$2 colours=$3 page=$OUT/$1.html shot=$OUT/$1.png
  browse "$WORK/$name.dom.log" --dump-dom "file://$page" >"$WORK/$name.dom.html" ||
    fail "chromium --dump-dom $page exited $?: $(tail -5 "$WORK/$name.dom.log")"
  "$PY" "$CHECK" dom "$WORK/$name.dom.html" "$expect" || fail "$name: the DOM is not as expected (page $page)"
  rm -f "$shot"
  browse "$WORK/$name.shot.log" --screenshot="$shot" --window-size=1400,1200 "file://$page" >/dev/null ||
    fail "chromium --screenshot exited $?: $(tail -5 "$WORK/$name.shot.log")"
  [ -f "$shot" ] || fail "no screenshot at $shot: $(tail -5 "$WORK/$name.shot.log")"
  local size
  size=$(stat -c %s "$shot")
  [ "$size" -gt 10000 ] || fail "screenshot $shot is only $size bytes"
  [ "$(head -c 8 "$shot" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "$shot has no PNG signature"
  "$PY" "$CHECK" png "$shot" "$colours" || fail "$name: the screenshot is not as expected ($shot)"
  echo "screenshot: $shot ($size bytes)"
}

# 1. The fixture, one host renamed to markup that would run if it were not escaped.
evil='<script>document.title="pwned"</script><b>node2</b>'
"$PY" - "$IBGPU_SOURCE_DIR/tests/data/golden/report.json" "$WORK/fixture.json" "$evil" <<'PY'
import json, sys
def rename(x):
    if isinstance(x, str): return x.replace("node2", sys.argv[3])
    if isinstance(x, list): return [rename(v) for v in x]
    if isinstance(x, dict): return {k: rename(v) for k, v in x.items()}
    return x
json.dump(rename(json.load(open(sys.argv[1]))), open(sys.argv[2], "w"))
PY
"$IBGPU_RENDER" html "$WORK/fixture.json" "$OUT/fixture.html" || fail "ibgpu_render_report exited $?"
cat >"$WORK/fixture.expect.json" <<EOF
{"heatmaps": {"bandwidth:mpi": {"pairs": 0, "valued": 0, "unmeasured": 1, "flags": 0, "self": 2},
              "latency:mpi": {"pairs": 0, "valued": 0, "unmeasured": 1, "flags": 0, "self": 2},
              "bandwidth:mlx5_0": {"pairs": 1, "valued": 0, "unmeasured": 0, "flags": 1, "self": 2}},
 "nodes": ["node1", $("$PY" -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$evil")],
 "reason_rows": 7, "table_first_cells": {"within-rail-0": ["node1"], "within-lat-0": ["node1"]},
 "sections": ["bandwidth", "latency", "allreduce-section", "admission", "next-steps", "problems"],
 "text": [$("$PY" -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$evil"), "admit_degraded", "IB_PORT_DOWN",
          "0 of 1 host pair measured", "what 1 host measured within itself, below", "Within one host",
          "No admission action was requested, so nothing was drained", "host up? (ssh, scontrol show node)"]}
EOF
# Two ranks of node1 measured each other over MPI: the same host, no pair (listed below
# the heatmap, within one host), so the mpi heatmaps are white on the diagonal and light grey elsewhere; the timed-out
# verbs pair is dark grey under a black outline and cross; node2's label is red.
check_in_browser fixture "$WORK/fixture.expect.json" "#595959:1000,#d9d9d9:1000,#a3201a:200"
check_contrast fixture "degraded,failed,unknown"

# 2. A fleet: every section, six pairs of four hosts, the burn-in chart, every state's label.
"$PY" "$IBGPU_SOURCE_DIR/tests/browser/fleet_fixture.py" "$IBGPU_SOURCE_DIR/tests/data/golden/report.json" \
  "$WORK/fleet.json" || fail "fleet_fixture.py exited $?"
"$IBGPU_RENDER" html "$WORK/fleet.json" "$OUT/fleet.html" || fail "ibgpu_render_report (fleet) exited $?"
cat >"$WORK/fleet.expect.json" <<'EOF'
{"heatmaps": {"bandwidth:mpi": {"pairs": 6, "valued": 5, "unmeasured": 0, "flags": 2, "self": 4, "leaves": 2},
              "latency:mpi": {"pairs": 6, "valued": 6, "unmeasured": 0, "flags": 2, "self": 4, "leaves": 2}},
 "nodes": ["a", "b", "c", "d"],
 "sections": ["bandwidth", "latency", "allreduce-section", "admission", "next-steps", "problems", "burn-in"],
 "allreduce": {"rows": 12, "series": 1, "points": 3},
 "burn_in": {"link a<->d": {"charts": 1, "bad_rounds": "3,5", "flagged": 2}},
 "text": ["6 of 6 host pairs measured", "Burn-in over 6 rounds", "NET_BW_LOW in rounds 3, 5"]}
EOF
# The failed labels' red; the fast pairs at the top of the ramp (the burn-in chart is below the fold).
check_in_browser fleet "$WORK/fleet.expect.json" "#a3201a:200,#fde725:2000"
check_contrast fleet "healthy,degraded,failed,unknown,none"

# 2b. The colour scale: the same fleet with every pair within 7% of the best, as on a healthy
# rail. The ramp is tied to the best, so no pair is drawn dark; a min-to-max scale drew the
# slowest pair in the darkest colour (#440154; the legend's ramp shows a sliver of it).
"$PY" - "$WORK/fleet.json" "$WORK/spread.json" <<'PY' || fail "the spread fixture could not be made"
import json, sys
r = json.load(open(sys.argv[1]))
bw, lat = iter([11.5, 11.3, 11.1, 10.95, 10.8, 10.7]), iter([2.0, 2.03, 2.06, 2.09, 2.11, 2.14])
for p in r["probes"]:
    if p["id"] == "net.mpi.bw":
        p["status"], p["error"], p["metrics"]["bw_avg_GBps"] = "ok", None, next(bw)
    elif p["id"] == "net.mpi.lat":
        v = next(lat)
        p["metrics"]["lat_us"].update({"min": v * 0.9, "p50": v, "p90": v, "mean": v})
json.dump(r, open(sys.argv[2], "w"))
PY
"$IBGPU_RENDER" html "$WORK/spread.json" "$OUT/spread.html" || fail "ibgpu_render_report (spread) exited $?"
cat >"$WORK/spread.expect.json" <<'EOF'
{"heatmaps": {"bandwidth:mpi": {"pairs": 6, "valued": 6, "unmeasured": 0, "flags": 2, "self": 4, "leaves": 2},
              "latency:mpi": {"pairs": 6, "valued": 6, "unmeasured": 0, "flags": 2, "self": 4, "leaves": 2}},
 "nodes": ["a", "b", "c", "d"],
 "text": ["5.750 GB/s or less", "worst pair 10.70 GB/s", "4.000 us or more"]}
EOF
check_in_browser spread "$WORK/spread.expect.json" "#fde725:2000,#440154:<200"

# 3. The real binary's page for a pairwise bandwidth run.
if ! command -v mpirun >/dev/null; then
  echo "SKIP parts 3 and 4: no mpirun here; parts 1, 2 and 2b passed"
  exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
spec=()
for h in h0 h1 h2 h3; do
  [ ${#spec[@]} -eq 0 ] || spec+=(:)
  spec+=(-np 1 -x "IBGPU_HOSTNAME=$h" "$IBGPU" probe bw --transport mpi --sizes "64K,256K" --format html)
done
set +e
timeout --kill-after=5 120 mpirun --bind-to none "${spec[@]}" >"$OUT/probe.html" 2>"$WORK/probe.err"
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "ibgpu probe bw --format html exited $rc: $(tail -5 "$WORK/probe.err")"
[ "$(head -c 15 "$OUT/probe.html")" = "<!DOCTYPE html>" ] || fail "stdout of probe bw is not only the page"
cat >"$WORK/probe.expect.json" <<'EOF'
{"heatmaps": {"bandwidth:mpi": {"pairs": 6, "valued": 6, "unmeasured": 0, "flags": 0, "self": 4}},
 "nodes": ["h0", "h1", "h2", "h3"],
 "text": ["256K", "6 of 6 host pairs measured"]}
EOF
# Four hosts: six pairs, each above the diagonal and mirrored below it; the diagonal white.
check_in_browser probe "$WORK/probe.expect.json" "#ffffff:4000"

# 4. One host, as a node back from repair is checked: two ranks on it measure each other. No
# heatmap (no pair of hosts); what it measured within itself instead.
set +e
timeout --kill-after=5 120 mpirun --bind-to none -np 2 -x IBGPU_HOSTNAME=n1 "$IBGPU" check --profile cpu \
  --transport mpi --sizes 64K --allreduce off --format html >"$OUT/one_host.html" 2>"$WORK/one_host.err"
rc=$?
set -e
case $rc in 0 | 1 | 2) ;; *) fail "ibgpu check on one host exited $rc: $(tail -5 "$WORK/one_host.err")" ;; esac
cat >"$WORK/one_host.expect.json" <<'EOF'
{"heatmaps": {}, "nodes": ["n1"], "table_first_cells": {"within-rail-0": ["n1"], "within-lat-0": ["n1"]},
 "text": ["one host, no pair of hosts", "Within one host"]}
EOF
check_in_browser one_host "$WORK/one_host.expect.json" "#ffffff:1000"
