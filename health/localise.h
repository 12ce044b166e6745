#pragma once
// Localisation: from judged pair measurements to the entity at fault. A node
// (or one of its rails) bad with several good peers is the culprit; a pair
// bad only together is a link/path problem and neither node is blamed. Also
// plans re-tests that pair suspects with known-good nodes. Pure.
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/fabric_topology.h"
#include "core/verdict.h"
#include "health/pair_observation.h"

namespace ibgpu {

// One edge: the observation a pair of units is judged by, and whether a bad
// one is a finding on its link. In a run that re-tested (any observation is a
// re-test), a pair degraded in its one measurement is evidence on its ends,
// and nothing more: a degraded figure that no second measurement reproduced is
// a noise tail as often as a fault (at fleet scale, hundreds of them), and a
// degraded verdict needs a re-test that confirms it. Such pairs are those a
// re-test pass met for the first time (a suspect re-paired with a cleared
// host), and those of the run's own plan that the re-tests left alone (under a
// limit that moved a hair once re-tests joined the noise estimate, or cut by
// the budget). In a run without re-tests a pair measured once still speaks for
// its link, and a failed one (a timeout, a figure under the profile's floor)
// always does.
struct PairEdge {
  const PairObservation* judged = nullptr;
  bool unconfirmed = false;  // degraded in its one measurement, in a run that re-tested
};

// The edges of a run: one per group and unordered pair of units, in order of
// first mention. Re-tests of one rank pair fold into the mildest: a pair is bad
// only when every measurement of it is bad and they reproduce the deficit (the
// mildest shortfall from what the pair should read, the fleet reference or else
// the limit, is larger than the measurements disagree: 300x and then 3x a
// latency reference is a noisy pair, 0.30 and 0.32 of a bandwidth reference a
// bad one, and so are 0.36 and 0.50 where the run's noise spreads a pair's
// figures that far), and, where the run's noise is known, each of them lies
// beyond the limit by more than the noise of a mean of that many (sigma over
// its root): twice just under the limit is a lower number, not a deficit, and
// so is a transient (0.41 of the reference) re-tested just under the limit (at
// fleet scale, a thousand first-pass suspects re-tested bring a dozen such
// pairs); otherwise the edge is a healthy copy kept in `made`. A reproduced
// deficit is as sure as its measurements together: a copy of the mildest, kept
// in `made`, with their confidences combined (health/confidence.h). The rank
// pairs between the same two units fold into the worst of them (peers are
// counted once); ties go to the first mentioned, a confirmed pair before an
// unconfirmed one. localise() and the re-test planner (health/judge.h) both
// judge pairs by this fold.
std::vector<PairEdge> pair_edges(const std::vector<PairObservation>& observations, std::deque<PairObservation>& made);

// A culprit bad with this many peers that are not suspects themselves is confirmed by them:
// re-testing its pairs one by one would add nothing (a node bad with 32 peers needs no 32 more
// rounds, a dead one no 32 more timeouts). Fewer (one quick round, two peers; every host of a
// group of up to six, where a re-test pass costs a few rounds) are re-tested.
constexpr int kConfirmedByPeers = 6;

// A re-test pass re-pairs suspects with cleared hosts for as many rounds as its busiest suspect
// needs and at most this many more: where few hosts are cleared (a noisy fleet), the most suspect
// are re-paired first and the pass does not run to hundreds of rounds.
constexpr int kMaxPartnerRounds = 8;

// A unit bad with `bad` of its `peers` peers: at least two, and a majority.
inline bool bad_with_most_peers(std::ptrdiff_t bad, std::ptrdiff_t peers) { return bad >= 2 && 2 * bad > peers; }

// A host is blamed as a node when all its measured rails are culprits, or most of three or more
// (a slow node, a few of whose rails read well by chance, rather than that many rails failing).
inline bool host_is_culprit(std::ptrdiff_t culprits, std::ptrdiff_t measured) {
  return culprits > 0 && (culprits == measured || (measured >= 3 && 2 * culprits > measured));
}

// Per group: culprit units (host, or host and rail) and unexplained bad pairs.
// A unit is a culprit when its pairs are bad with >= 2 peers that are not
// themselves suspects, and with a majority of those; or, when it has fewer
// than two such peers (four hosts: one slow, plus a noisy pair between two
// others), when every one of its >= 2 pairs is bad. A host all of whose measured
// rails are culprits is blamed as a node, otherwise each culprit rail as an
// hca_port. What the fabric explains better (health/fabric.h: a leaf switch or
// its uplinks with a topology, a cut between groups of hosts with or without
// one) is blamed on the switch, uplink or path instead, and drains no node.
// Every other unexplained bad pair blames its link, unless it is unconfirmed
// (PairEdge: degraded once in a run that re-tested). O(n log n) in the number
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

// Re-test rounds, side by side: every suspect of a pass at once, in disjoint
// pairs. A suspect is an end of a suspect pair that `known_good` (the hosts the
// run has cleared) does not hold. Each suspect meets `peers_per_suspect`
// distinct cleared partners, spread across them, never another suspect; a
// suspect pair of two suspects is also measured again (a link fault shows only
// there). k suspects with p partners each and G cleared hosts take
// ceil(p*k / min(k, G)) rounds, or as many as the busiest suspect needs; when
// few hosts are cleared, at most 8, the most suspect (in the most suspect
// pairs) re-paired first. Empty when there is nothing to re-test; without
// cleared hosts only the pairs of two suspects are measured again.
std::vector<PairRound> plan_retests(const std::vector<HostPair>& suspect_pairs,
                                    const std::vector<std::string>& known_good, int peers_per_suspect = 2);

}  // namespace ibgpu
