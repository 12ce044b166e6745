#!/bin/bash
# prometheus_clean.sh REPORT.json: renders a saved report as Prometheus text with $IBGPU and
# holds it to Prometheus' own check (`promtool check metrics`: the exposition parses, and names,
# units and suffixes follow its rules). Exit 0 when clean; otherwise 1, with promtool's findings.
# promtool comes with Debian's prometheus package, which ci/setup installs.
set -euo pipefail
: "${IBGPU:?path of the ibgpu binary}"
report=${1:?usage: prometheus_clean.sh REPORT.json}
command -v promtool >/dev/null || { echo "promtool not found: ci/setup installs the prometheus package" >&2; exit 1; }
text=$(mktemp)
trap 'rm -f "$text"' EXIT
"$IBGPU" report "$report" --format prometheus >"$text"
[ -s "$text" ] || { echo "$report: the Prometheus text is empty" >&2; exit 1; }
if ! findings=$(promtool check metrics <"$text" 2>&1); then
  echo "$report: promtool check metrics: $findings" >&2
  exit 1
fi
