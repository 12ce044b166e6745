#!/bin/bash
# The shipped Prometheus rules (monitoring/ibgpu.rules.yml): valid for Prometheus
# (`promtool check rules`), and each rule does what its comment says over series shaped as
# ibgpu exposes them (`promtool test rules` with tests/monitoring/ibgpu_rules_test.yml: a node
# admitted throughout, one failure, a flapping node, a lemon, a link below its floor, a source
# that stopped reporting). The real Prometheus loads them over real runs in the netns lane.
set -euo pipefail
: "${IBGPU_SOURCE_DIR:?repository root}"
command -v promtool >/dev/null || { echo "FAIL: promtool not found: ci/setup installs the prometheus package" >&2; exit 1; }
promtool check rules "$IBGPU_SOURCE_DIR/monitoring/ibgpu.rules.yml"
promtool test rules "$IBGPU_SOURCE_DIR/tests/monitoring/ibgpu_rules_test.yml"
# The table of rules in docs/operations.md names every alert the file has.
alerts=$(sed -n 's/^ *- alert: *//p' "$IBGPU_SOURCE_DIR/monitoring/ibgpu.rules.yml")
[ -n "$alerts" ] || { echo "FAIL: no alert in monitoring/ibgpu.rules.yml" >&2; exit 1; }
for alert in $alerts; do
  grep -q "^| \`$alert\`" "$IBGPU_SOURCE_DIR/docs/operations.md" || { echo "FAIL: the rules table of docs/operations.md lacks $alert" >&2; exit 1; }
done
echo "rules: $(echo "$alerts" | wc -l) alerts, each in the table of docs/operations.md"
