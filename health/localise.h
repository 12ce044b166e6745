#pragma once
// Localisation: from judged pair measurements to the entity at fault. A node
// (or one of its rails) bad with several good peers is the culprit; a pair
// bad only together is a link/path problem and neither node is blamed. Also
// plans re-tests that pair suspects with known-good nodes. Pure.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/fabric_topology.h"
#include "core/verdict.h"

namespace ibgpu {

// Views: the strings live in the judged results (and the judge's
// measurements), which outlive localisation.
struct Endpoint {
  std::string_view host;
  std::string_view device;  // rail "mlx5_0:1"; empty when not known (MPI)
  int rank = -1;            // tells apart several rank pairs between the same rails or hosts
};

// One judged measurement of one pair. Several observations of the same pair
// (same group, hosts, rails and ranks) are re-tests: the pair is bad only when
// every one of them is (a re-test confirms), and then as bad as the mildest.
// Different rank pairs between the same two units (MPI: hosts) are one edge,
// as bad as the worst of them, so peers are counted once.
struct PairObservation {
  std::string_view group;  // what was measured: "net.verbs.write_bw@8388608:bw_avg_GBps"
  Endpoint a, b;
  HealthState state = HealthState::healthy;  // healthy, degraded or failed
  std::optional<Reason> reason;              // when not healthy
};

struct Blame {
  Entity entity;  // node, hca_port or link; switch, uplink or path (the fabric)
  HealthState state = HealthState::healthy;
  Reason reason;
  int bad_peers = 0;  // node, hca_port: bad with this many peers that are not suspects themselves
};

// A culprit bad with this many peers that are not suspects themselves is confirmed by them:
// re-testing its pairs one by one would add nothing (a node bad with 32 peers needs no 32 more
// rounds, a dead one no 32 more timeouts). Fewer (one quick round, two peers; every host of a
// group of up to six, where a re-test pass costs a few rounds) are re-tested.
constexpr int kConfirmedByPeers = 6;

// Per group: culprit units (host, or host and rail) and unexplained bad pairs.
// A unit is a culprit when its pairs are bad with >= 2 peers that are not
// themselves suspects, and with a majority of those; or, when it has no such
// peer, when every one of its >= 2 pairs is bad. A host all of whose measured
// rails are culprits is blamed as a node, otherwise each culprit rail as an
// hca_port. What the fabric explains better (health/fabric.h: a leaf switch or
// its uplinks with a topology, a cut between groups of hosts with or without
// one) is blamed on the switch, uplink or path instead, and drains no node.
// Every other unexplained bad pair blames its link. O(n log n) in the number
// of observations, and the topology's leaves.
std::vector<Blame> localise(const std::vector<PairObservation>& observations, const FabricTopology* topology = nullptr);

// Hosts that appear in any observation and are not blamed (as node or rail):
// candidates to re-test suspects against.
std::vector<std::string> known_good_hosts(const std::vector<PairObservation>& observations,
                                          const std::vector<Blame>& blames);

using HostPair = std::pair<std::string, std::string>;
struct PairRound {
  std::vector<HostPair> pairs;  // disjoint: no host twice in a round
};

// Re-test rounds: each suspect pair once more as it was, then each host of a
// suspect pair with `peers_per_suspect` distinct known-good hosts. Suspects are
// never paired with each other; a known-good host is in at most one pair per
// round. When the good hosts cannot meet every suspect within as many rounds as
// the suspect pairs' re-test takes (and at least peers_per_suspect), the most
// suspect hosts (in the most suspect pairs) are re-paired and the rest are not.
// Empty when there is nothing to re-test; no re-pairing without good hosts.
std::vector<PairRound> plan_retests(const std::vector<HostPair>& suspect_pairs,
                                    const std::vector<std::string>& known_good, int peers_per_suspect = 2);

}  // namespace ibgpu
