#pragma once
// Fabric localisation: bad pairs that a switch path explains better than nodes or links.
// With a topology (Slurm's topology.conf), a leaf switch (every unit on it bad, pairs within it
// too) or a leaf's uplinks (every unit on it bad with the rest while good within it; or bad pairs
// out of the leaf from several of its hosts to several hosts elsewhere). With or without one, a cut
// between groups of hosts that are good within each group and bad across (a fabric path between
// them; each host of the smaller group bad with most of its peers, and that group whole leaves,
// or three hosts or more where no leaf is known). What the fabric explains drains no node and
// blames no link. Called by localise() on one group of measurements; pure.
#include <cstddef>
#include <string_view>
#include <vector>

#include "core/fabric_topology.h"
#include "health/pair_observation.h"

namespace ibgpu {

// A unit is what may be at fault on a host: one of its rails, or the host when no rail is known.
struct FabricUnit {
  std::string_view host, device;
  bool culprit = false;      // bad with most of its peers (health/localise.h)
  bool whole_node = false;   // its host has several measured rails and every one is a culprit (a node)
  bool on_bad_node = false;  // its host will be blamed as a node (whole_node, or most of its rails)
};

struct FabricEdge {
  std::size_t a = 0, b = 0;  // units
  const PairObservation* observation = nullptr;
  bool bad() const { return observation->state != HealthState::healthy; }
};

struct FabricExplanation {
  std::vector<Blame> blames;         // switch, uplink, path
  std::vector<bool> unit_explained;  // per unit: a culprit the fabric explains, not to be blamed
  std::vector<bool> edge_explained;  // per edge: a bad pair the fabric explains, no link to blame
};

// A leaf's uplinks are blamed for bad pairs out of it without its hosts being culprits when at
// least kUplinkMinPairs such pairs, from at least two of its units to at least two units
// elsewhere, are explained by nothing else, and when so many bad pairs out of it would happen by
// chance less often than kUplinkSignificance (over all leaves) at the bad share of the other
// pairs: a noisy run's few bad pairs are links.
constexpr int kUplinkMinPairs = 3;
constexpr double kUplinkSignificance = 1e-3;

// `topology` may be null (no --topology): then only cuts between groups are found.
FabricExplanation explain_by_fabric(const std::vector<FabricUnit>& units, const std::vector<FabricEdge>& edges,
                                    const FabricTopology* topology);

}  // namespace ibgpu
