#!/bin/bash
# ibgpu's metrics in a real Prometheus (Debian's prometheus, pushgateway and node exporter, on
# loopback ports, stopped after), with the shipped rules and dashboard (monitoring/):
# - a fleet check of five namespace hosts, clean, pushed to the Pushgateway (job ibgpu, instance
#   fleet) as rank 0's report: every node admitted in Prometheus as in the report;
# - the same fleet with h2 limited to 50mbit, pushed again: h2 drained in Prometheus as in the
#   report, IbgpuNodeNotAdmitted firing for the nodes the report drains (h2, where the lane
#   expects localisation) and no other, each changed once;
# - a node's own check (an HGX H100 as NVML injection and sysfs data, a GPU with uncorrectable
#   ECC errors) writing into the node exporter's textfile directory (--prometheus), and a
#   burn-in of it pushed in
#   a group of its own (the two groups' HELP texts must agree, or the Pushgateway refuses);
# - every panel query of monitoring/ibgpu.dashboard.json returns series, and every rule evaluates
#   without error.
source "$(dirname "$0")/lib.sh"
: "${IBGPU_NVML_INJECTION_DIR:?folder of the NVML injection library (set by CTest)}"
[ -f "$IBGPU_NVML_INJECTION_DIR/libnvidia-ml.so.1" ] || fail "no libnvidia-ml.so.1 in $IBGPU_NVML_INJECTION_DIR"
for tool in prometheus prometheus-pushgateway prometheus-node-exporter curl; do
  command -v "$tool" >/dev/null || fail "$tool not found: ci/setup installs it"
done
hosts_up 5
# The lane's loose fleet rules, on nodes with neither GPUs nor RDMA ports: a clean host is admitted.
cat >"$WORK/profile.toml" <<'TOML'
name = "netns-prometheus"
[node]
expect_gpus = 0
expect_active_ports = 0
[network]
bw_min_size_B = 65536
[fleet]
enabled = true
bw_fraction = 0.15
lat_multiple = 100.0
min_fleet_size = 6
TOML
PROFILE=(--profile "$WORK/profile.toml")
check_with 10 auto

# Three free loopback ports, and the three servers on them.
ports=$("$PY" -c '
import socket
socks = [socket.socket() for _ in range(3)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])') || fail "no free loopback ports"
read -r pgw_port ne_port prom_port <<<"$ports"
textfile=$WORK/textfile
mkdir -p "$textfile" "$WORK/tsdb"
cat >"$WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $IBGPU_SOURCE_DIR/monitoring/ibgpu.rules.yml
scrape_configs:
  - job_name: pushgateway
    honor_labels: true
    static_configs: [{targets: ["127.0.0.1:$pgw_port"]}]
  - job_name: node
    static_configs: [{targets: ["127.0.0.1:$ne_port"]}]
YAML
# Every path named: Debian's defaults are under /var/lib/prometheus (its pushgateway even keeps
# its groups there across restarts, which fed one run's pushes into the next).
servers=()
prometheus-pushgateway --web.listen-address="127.0.0.1:$pgw_port" --persistence.file="" >"$WORK/pushgateway.log" 2>&1 &
servers+=($!)
prometheus-node-exporter --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$textfile" --web.listen-address="127.0.0.1:$ne_port" >"$WORK/node-exporter.log" 2>&1 &
servers+=($!)
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" >"$WORK/prometheus.log" 2>&1 &
servers+=($!)
stop_servers() {
  kill "${servers[@]}" 2>/dev/null || true
  wait "${servers[@]}" 2>/dev/null || true
}
trap 'stop_servers; netns_down' EXIT
prom() { "$PY" -B "${0%.sh}.py" "$1" "$prom_port" "${@:2}"; }

# push REPORT JOB INSTANCE: the report's Prometheus text into the Pushgateway's group, as the
# docs/operations.md shows it (replacing what that group held).
push() {
  "$IBGPU" report "$1" --format prometheus |
    curl --fail --silent --show-error --max-time 30 --data-binary @- -X PUT \
      "http://127.0.0.1:$pgw_port/metrics/job/$2/instance/$3" ||
    fail "push of $1 to job $2 instance $3 refused (above)"
}

# 1. Clean, then h2 slow: two fleet runs pushed in turn.
ibgpu_on_hosts 120 "${CHECK[@]}" --timeout 30 --json "$WORK/clean.json" >"$WORK/clean.log" 2>&1
validate "$WORK/clean.json"
push "$WORK/clean.json" ibgpu fleet
prom decisions "$WORK/clean.json" fleet || fail "clean run: Prometheus does not hold the report's decisions"
netns_limit_host 2 50mbit
ibgpu_on_hosts 120 "${CHECK[@]}" --timeout 30 --json "$WORK/slow.json" >"$WORK/slow.log" 2>&1
netns_unlimit_host 2
validate "$WORK/slow.json"
push "$WORK/slow.json" ibgpu fleet
prom decisions "$WORK/slow.json" fleet || fail "slow run: Prometheus does not hold the report's decisions"
prom alerted_as_decided "$WORK/clean.json" "$WORK/slow.json" h2 "$EXPECT_LOCALISATION" ||
  fail "slow run: the alerts are not as the report decides"

# 2. A node's own check through the textfile collector, and its burn-in through the Pushgateway.
tree=$IBGPU_SOURCE_DIR/tests/data/sysfs/cx7-ndr
node_env=(env IBGPU_HOSTNAME=n1 LD_LIBRARY_PATH="$IBGPU_NVML_INJECTION_DIR"
          IBGPU_NVML_SCENARIO="$IBGPU_SOURCE_DIR/tests/data/nvml/h100_ecc_uncorrectable.toml")
set +e
timeout --kill-after=5 120 "${node_env[@]}" "$IBGPU" check --profile hgx-h100-ndr --sysfs-root "$tree" --allreduce off \
  --json "$WORK/node.json" --prometheus "$textfile/ibgpu.prom" >"$WORK/node.log" 2>&1
timeout --kill-after=5 120 "${node_env[@]}" "$IBGPU" burn-in --rounds 2 --profile hgx-h100-ndr --sysfs-root "$tree" --allreduce off \
  --jsonl "$WORK/burn-in.jsonl" --json "$WORK/burn-in.json" >"$WORK/burn-in.log" 2>&1
set -e
[ -s "$WORK/node.json" ] || fail "the node's check wrote no report: $(tail -n 5 "$WORK/node.log")"
[ -s "$WORK/burn-in.json" ] || fail "the node's burn-in wrote no report: $(tail -n 5 "$WORK/burn-in.log")"
[ -s "$textfile/ibgpu.prom" ] || fail "the node's check wrote no Prometheus text: $(tail -n 5 "$WORK/node.log")"
push "$WORK/burn-in.json" ibgpu-burn-in n1
prom decisions "$WORK/node.json" "127.0.0.1:$ne_port" || fail "the node's check: not in Prometheus as in its report"

# 3. The dashboard's queries and the rules over all of it.
prom dashboard "$IBGPU_SOURCE_DIR/monitoring/ibgpu.dashboard.json" || fail "a dashboard panel has no data (above)"
prom rules_healthy || fail "a rule does not evaluate (above)"
echo "prometheus: fleet runs pushed, a node's check scraped, alerts as decided, every panel has data"
