#!/usr/bin/env bash
# Stated power against observed detection: `ibgpu simulate` over many seeds, per fleet size, plan
# and slow factor, summing what the verdicts found and what the plan was stated to find
# (health/power.h). Prints one line per fleet size, plan and slow factor:
#   nodes plan slow  found/injected (rate)  stated power (mean over the seeds)
#   healthy flagged (drained + degraded, summed over the seeds) / expected (summed likewise)
# Usage: ci/bench/plan_power.sh            # 256, 1,024 and 4,096 nodes, 50 seeds, 4 rails
# Environment: IBGPU (build/ibgpu), SIZES ("256 1024 4096"), SEEDS (50), RAILS (4), NOISE (0.1),
# SLOWS ("0.9 0.8 0.5"), PLANS ("peers:4,peers:16"; at 256 nodes "all" is added unless ALL=0), BAD
# (2%).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
IBGPU=${IBGPU:-$root/build/ibgpu} SIZES=${SIZES:-256 1024 4096} SEEDS=${SEEDS:-50} RAILS=${RAILS:-4}
NOISE=${NOISE:-0.1} SLOWS=${SLOWS:-0.9 0.8 0.5} PLANS=${PLANS:-peers:4,peers:16} BAD=${BAD:-2%}
[ -x "$IBGPU" ] || { echo "plan_power: no binary at $IBGPU (build it, or set IBGPU)" >&2; exit 1; }
printf '%-6s %-9s %-5s %-18s %-7s %s\n' nodes plan slow "found (rate)" power "healthy flagged / expected"
for nodes in $SIZES; do
  plans=$PLANS
  [ "$nodes" -le 256 ] && [ "${ALL:-1}" != 0 ] && plans="all,$plans"
  for slow in $SLOWS; do
    for seed in $(seq 1 "$SEEDS"); do
      "$IBGPU" simulate --nodes "$nodes" --rails "$RAILS" --plan "$plans" --bad-nodes "$BAD" --noise "$NOISE" \
        --slow-factor "$slow" --seed "$seed"
    done | awk -v nodes="$nodes" -v slow="$slow" '
      # A row: its plan, then (past the time, which may hold a space) node rec, node prec, found,
      # power, rail rec, rail prec, rail pow, link prec, uplink, drained, degraded, expected.
      $1 ~ /^(all|quick|peers:[0-9]+)$/ {
        for (i = 2; i <= NF && $i !~ /^[0-9]+\/[0-9]+$/; ++i) {}
        if (i + 11 > NF) next
        split($(i + 2), f, "/")
        found[$1] += f[1]; injected[$1] += f[2]; power[$1] += $(i + 3); runs[$1] += 1
        flagged[$1] += $(i + 9) + $(i + 10); expected[$1] += $(i + 11)
        if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
      }
      END {
        for (k = 1; k <= n; ++k) {
          p = order[k]
          printf "%-6s %-9s %-5s %5d/%-5d (%.2f)  %.2f    %d / %.1f\n", nodes, p, slow, found[p], injected[p],
                 injected[p] ? found[p] / injected[p] : 0, power[p] / runs[p], flagged[p], expected[p]
        }
      }'
  done
done
