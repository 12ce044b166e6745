#!/bin/bash
# The shipped Grafana dashboard (monitoring/ibgpu.dashboard.json) is ready for provisioning: JSON
# with a uid and title, every panel on the Prometheus data source variable with a unique id, a
# place on the grid and a query; the panel table of docs/operations.md lists exactly its panels' queries.
# (Whether each query returns the series its panel draws is asked of a real Prometheus over real
# runs: tests/netns/prometheus_test.sh.)
set -euo pipefail
: "${IBGPU_SOURCE_DIR:?repository root}"
/usr/bin/python3 - "$IBGPU_SOURCE_DIR/monitoring/ibgpu.dashboard.json" "$IBGPU_SOURCE_DIR/docs/operations.md" <<'PY'
import json, re, sys
dashboard_path, readme_path = sys.argv[1:]
with open(dashboard_path) as f:
    d = json.load(f)
assert d["uid"] == "ibgpu-fleet" and d["title"], (d.get("uid"), d.get("title"))
names = [v["name"] for v in d["templating"]["list"]]
assert names == ["datasource", "node"], names
ids = [p["id"] for p in d["panels"]]
assert len(ids) == len(set(ids)), ids
queries = []
for p in d["panels"]:
    g = p["gridPos"]
    assert g["w"] > 0 and g["h"] > 0 and 0 <= g["x"] and g["x"] + g["w"] <= 24, (p["title"], g)
    if p["type"] == "row":
        continue
    assert p["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, (p["title"], p["datasource"])
    assert p["targets"], p["title"]
    for t in p["targets"]:
        assert t["expr"].strip() and t["refId"], (p["title"], t)
        queries.append((p["title"], t["expr"]))
with open(readme_path) as f:
    readme = f.read()
table = readme[readme.index("| panel | kind | query |"):]
table = table[:table.index("\n\n")]
listed = [(m.group(1), m.group(2).replace("\\|", "|")) for m in re.finditer(r"^\| ([^|*]+?) \| [a-z-]+ \| `(.+)` \|$", table, re.M)]
assert listed == queries, "the panel table of docs/operations.md is not the dashboard's:\n%s\n%s" % (listed, queries)
print("dashboard: %d panels' queries, as docs/operations.md lists them" % len(queries))
PY
