#include "app/collectives.h"

#include <gtest/gtest.h>

#include "app/network.h"
#include "tests/cluster/worlds.h"

namespace ibgpu {
namespace {

using Groups = std::vector<std::vector<int>>;

TEST(Placement, NamesRoundTrip) {
  for (Placement p : {Placement::job, Placement::node, Placement::rail})
    EXPECT_EQ(placement_from_string(to_string(p)), p);
  EXPECT_FALSE(placement_from_string("rack"));
}

// The options' words in and out are the same: --backend, --transport and --mem, and what the
// report writes of them (params.backend_requested).
TEST(OptionNames, RoundTripInTheOptionsOwnWords) {
  for (CollectiveBackend b : {CollectiveBackend::nccl, CollectiveBackend::mpi, CollectiveBackend::automatic})
    EXPECT_EQ(collective_backend_from_string(to_string(b)), b);
  EXPECT_STREQ(to_string(CollectiveBackend::automatic), "auto");
  EXPECT_FALSE(collective_backend_from_string("off"));  // check --allreduce off leaves the step out: no backend
  for (NetTransport t : {NetTransport::verbs, NetTransport::mpi, NetTransport::automatic})
    EXPECT_EQ(net_transport_from_string(to_string(t)), t);
  EXPECT_STREQ(to_string(NetTransport::automatic), "auto");
  EXPECT_FALSE(net_transport_from_string("nccl"));
  for (BufferMemory m : {BufferMemory::host, BufferMemory::gpu, BufferMemory::automatic})
    EXPECT_EQ(buffer_memory_from_string(to_string(m)), m);
  EXPECT_STREQ(to_string(BufferMemory::automatic), "auto");
  EXPECT_FALSE(buffer_memory_from_string("device"));
}

TEST(Placement, GroupsByHostAndByLocalRank) {
  // Ranks as a launcher might interleave them: a b a b c c.
  const World w = testing::mpi_world({"a", "b", "a", "b", "c", "c"});
  EXPECT_EQ(placement_groups(w, Placement::job), (Groups{{0, 1, 2, 3, 4, 5}}));
  EXPECT_EQ(placement_groups(w, Placement::node), (Groups{{0, 2}, {1, 3}, {4, 5}}));
  // Local rank 0 on every host is one rail, local rank 1 the other.
  EXPECT_EQ(placement_groups(w, Placement::rail), (Groups{{0, 1, 4}, {2, 3, 5}}));
}

TEST(Placement, UnevenHostsLeaveSmallerRails) {
  const World w = testing::mpi_world({"a", "a", "a", "b"});
  EXPECT_EQ(placement_groups(w, Placement::node), (Groups{{0, 1, 2}, {3}}));
  EXPECT_EQ(placement_groups(w, Placement::rail), (Groups{{0, 3}, {1}, {2}}));
}

// A member's own account of an all-reduce that gave up: its rank, placement and group.
ProbeResult gave_up(int rank, const std::string& host, Placement placement) {
  ProbeResult r;
  r.id = "collective.mpi.all_reduce";
  r.status = ProbeStatus::timeout;
  r.scope = Scope{{host}, {rank}, {}};
  r.params["placement"] = to_string(placement);
  r.error = "no completion of MPI_Allreduce within 6 s: a rank is stopped, dead or stuck";
  return r;
}

TEST(ExcuseWaitsOnLost, MembersOfAGroupWithALostRankAreNotJudgedAndTheLostRankIsNamed) {
  // Hosts a, b, c with two ranks each; rank 3 (host b, local rank 1) sent no results.
  const World w = testing::mpi_world({"a", "a", "b", "b", "c", "c"});
  std::vector<ProbeResult> results{gave_up(0, "a", Placement::job),  gave_up(2, "b", Placement::node),
                                   gave_up(4, "c", Placement::node), gave_up(5, "c", Placement::rail),
                                   gave_up(0, "a", Placement::rail), gave_up(3, "b", Placement::job)};
  excuse_waits_on_lost(results, w, {3});
  // The lost rank's own timeout (absent from a roll call) stands.
  EXPECT_EQ(results[5].status, ProbeStatus::timeout);
  // The job and b's node group held rank 3, as did the rail of local rank 1 (ranks 1, 3, 5).
  for (std::size_t i : {0u, 1u, 3u}) {
    EXPECT_EQ(results[i].status, ProbeStatus::skipped) << i;
    EXPECT_EQ(results[i].skipped_by, SkippedBy::ibgpu) << i;
    EXPECT_NE(results[i].reason->find("host b rank 3 was lost during it"), std::string::npos) << *results[i].reason;
    EXPECT_FALSE(results[i].error) << i;
  }
  // c's node group and the rail of local rank 0 (ranks 0, 2, 4) did not: their timeouts stand.
  EXPECT_EQ(results[2].status, ProbeStatus::timeout);
  EXPECT_EQ(results[4].status, ProbeStatus::timeout);
}

TEST(ExcuseWaitsOnLost, NothingLostLeavesEveryTimeout) {
  const World w = testing::mpi_world({"a", "b"});
  std::vector<ProbeResult> results{gave_up(0, "a", Placement::job), gave_up(1, "b", Placement::job)};
  excuse_waits_on_lost(results, w, {});
  EXPECT_EQ(results[0].status, ProbeStatus::timeout);
  EXPECT_EQ(results[1].status, ProbeStatus::timeout);
}

TEST(ExcuseWaitsOnLost, AWaitThatEndedOnOneMemberIsThatMembersDoingUnlessTheWaiterWasLost) {
  // Hosts a..e, one rank each; rank 1 absent (lost), ranks 0, 2, 3, 4 ran among themselves.
  const World w = testing::mpi_world({"a", "b", "c", "d", "e"});
  auto waited_on = [](ProbeResult r, int peer) {
    r.params["waited_on_rank"] = peer;
    return r;
  };
  std::vector<ProbeResult> results{
      waited_on(gave_up(0, "a", Placement::job), 2),   // rank 2 left the step while rank 0 waited
      waited_on(gave_up(2, "c", Placement::node), 4),  // rank 4 fell silent and was lost
      waited_on(gave_up(4, "e", Placement::job), 3),   // rank 4 was lost itself: its timeout stands
      gave_up(3, "d", Placement::node)};               // no member named, no lost mate: it stands
  excuse_waits_on_lost(results, w, {1, 4});
  EXPECT_EQ(results[0].status, ProbeStatus::skipped);
  EXPECT_NE(results[0].reason->find("host c rank 2 left the all-reduce of the ranks that came while this rank waited"),
            std::string::npos)
      << *results[0].reason;
  EXPECT_EQ(results[1].status, ProbeStatus::skipped);
  EXPECT_NE(results[1].reason->find("host e rank 4 was lost during it"), std::string::npos) << *results[1].reason;
  EXPECT_EQ(results[2].status, ProbeStatus::timeout);
  EXPECT_EQ(results[3].status, ProbeStatus::timeout);
  // Without a lost rank in the job, the member named is still the one to blame.
  std::vector<ProbeResult> quiet{waited_on(gave_up(0, "a", Placement::job), 3)};
  excuse_waits_on_lost(quiet, w, {});
  EXPECT_EQ(quiet[0].status, ProbeStatus::skipped);
}

TEST(ExcuseWaitsOnLost, AWaitThatEndedOnAMemberWhoLeftForAnotherNamesTheFirstToLeave) {
  // Ranks 0, 2 and 3 ran among themselves (rank 1 absent); rank 2 left the step. Rank 0 gave up
  // on rank 2, and rank 3, waiting on rank 0 at that moment, saw rank 0 leave: rank 2 is named
  // in both (seen on four ranks of one host, allreduce_test.sh's deaf rank, 3 runs in 4).
  const World w = testing::mpi_world({"a", "b", "c", "d"});
  auto waited_on = [](ProbeResult r, int peer) {
    r.params["waited_on_rank"] = peer;
    return r;
  };
  std::vector<ProbeResult> results{waited_on(gave_up(0, "a", Placement::job), 2),
                                   waited_on(gave_up(3, "d", Placement::job), 0)};
  excuse_waits_on_lost(results, w, {1});
  for (const ProbeResult& r : results) {
    EXPECT_EQ(r.status, ProbeStatus::skipped);
    EXPECT_NE(r.reason->find("host c rank 2 left the all-reduce of the ranks that came"), std::string::npos)
        << *r.reason;
  }
  EXPECT_NE(results[1].reason->find("and host a rank 0, which this rank waited on, left after it"), std::string::npos)
      << *results[1].reason;
  // Two ranks that waited on each other name each other: neither left for a third.
  std::vector<ProbeResult> circle{waited_on(gave_up(0, "a", Placement::job), 3),
                                  waited_on(gave_up(3, "d", Placement::job), 0)};
  excuse_waits_on_lost(circle, w, {1});
  EXPECT_NE(circle[0].reason->find("host d rank 3 left"), std::string::npos) << *circle[0].reason;
  EXPECT_NE(circle[1].reason->find("host a rank 0 left"), std::string::npos) << *circle[1].reason;
}

// One pair result as the MPI pair probe leaves it: ranks a and b, the round, and a size (data
// moved) unless it ended at the meeting.
ProbeResult pair(const World& w, int a, int b, int round, ProbeStatus status, bool data = true) {
  ProbeResult r;
  r.id = "net.mpi.bw";
  r.status = status;
  r.scope = Scope{{w.places[a].host, w.places[b].host}, {a, b}, {}};
  r.params["round"] = round;
  if (data) r.params["size_B"] = 65536;
  return r;
}

TEST(MarkAfterLostRank, TheRanksThatSentToTheDeadOneAreNotJudgedFromTheRoundItWasMissed) {
  // As srun left it with s3's task killed between its rounds 0 and 1: s1 found no one at their
  // meeting in round 1 (no data moved), s4 was to meet it in round 2 and sent it heartbeats
  // meanwhile, so s2-s4 in round 1 crawled too (seen: 15 ms latency, s2 failed for it).
  const World w = testing::mpi_world({"s1", "s2", "s3", "s4"});
  std::vector<ProbeResult> results{pair(w, 0, 3, 0, ProbeStatus::ok),
                                   pair(w, 1, 2, 0, ProbeStatus::ok),
                                   pair(w, 0, 2, 1, ProbeStatus::timeout, false),
                                   pair(w, 1, 3, 1, ProbeStatus::ok),
                                   pair(w, 0, 1, 2, ProbeStatus::ok),
                                   pair(w, 3, 2, 2, ProbeStatus::timeout)};
  mark_after_lost_rank(results, w, {2});
  for (std::size_t i : {3u, 4u}) {
    ASSERT_TRUE(results[i].params.contains("not_judged")) << i;
    EXPECT_EQ(results[i].params["not_judged"].get<std::string>().rfind(
                  "measured after host s3 (rank 2) was lost in round 1 by a rank that sent to it after", 0),
              0u)
        << results[i].params.dump();
  }
  // Before the round it was missed in: judged (the failed pairs are not ok: nothing to mark).
  for (std::size_t i : {0u, 1u, 2u, 5u}) EXPECT_FALSE(results[i].params.contains("not_judged")) << i;

  // Nobody lost: nothing marked. A lost rank whose pairs all came back (it died after them): nothing.
  std::vector<ProbeResult> clean = results;
  for (auto& r : clean) r.params.erase("not_judged");
  mark_after_lost_rank(clean, w, {});
  clean.erase(clean.begin() + 5);
  clean.erase(clean.begin() + 2);
  mark_after_lost_rank(clean, w, {2});
  for (const auto& r : clean) EXPECT_FALSE(r.params.contains("not_judged"));
}

TEST(MarkAfterLostRank, PairsOfRanksThatNeverSentToItAreJudged) {
  // Eight hosts: h6 (rank 5) dies; its partners from then on are ranks 4 and 7; rank 0 answers
  // everyone. Pairs among ranks 1, 2, 3 and 6 stay judged, whatever their round.
  const World w = testing::mpi_world({"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"});
  std::vector<ProbeResult> results{
      pair(w, 5, 6, 0, ProbeStatus::ok),      pair(w, 1, 2, 0, ProbeStatus::ok),  // before: judged
      pair(w, 4, 5, 1, ProbeStatus::timeout), pair(w, 3, 6, 1, ProbeStatus::ok),  // missed in round 1
      pair(w, 0, 4, 1, ProbeStatus::ok),      pair(w, 7, 5, 2, ProbeStatus::timeout),
      pair(w, 7, 1, 2, ProbeStatus::ok),      pair(w, 2, 3, 2, ProbeStatus::ok),
      pair(w, 0, 6, 3, ProbeStatus::ok),      pair(w, 1, 6, 3, ProbeStatus::ok)};
  mark_after_lost_rank(results, w, {5});
  std::vector<std::size_t> marked;
  for (std::size_t i = 0; i < results.size(); ++i)
    if (results[i].params.contains("not_judged")) marked.push_back(i);
  EXPECT_EQ(marked, (std::vector<std::size_t>{4, 6, 8})) << "0-4, 7-1, 0-6: rank 0, 4 or 7 sent to h6 after";
}

TEST(Placement, DefaultsOnlyWhatDiffersFromTheJob) {
  using P = std::vector<Placement>;
  EXPECT_EQ(default_placements(testing::mpi_world({"a"})), (P{Placement::job}));
  EXPECT_EQ(default_placements(testing::mpi_world({"a", "a", "a", "a"})), (P{Placement::job}));  // a node is the job
  EXPECT_EQ(default_placements(testing::mpi_world({"a", "b", "c"})), (P{Placement::job}));       // a rail is the job
  EXPECT_EQ(default_placements(testing::mpi_world({"a", "a", "b", "b"})),
            (P{Placement::job, Placement::node, Placement::rail}));
}

TEST(Subworld, CountsWithinTheGroupAndKeepsLaunchRanks) {
  const World w = testing::mpi_world({"a", "b", "a", "b"}, 2);
  const World g = subworld(w, {0, 2});
  EXPECT_EQ(g.rank, 1);
  EXPECT_EQ(g.size, 2);
  EXPECT_EQ(g.self().rank, 2);  // the rank the operator launched
  EXPECT_EQ(g.host(), "a");
  EXPECT_EQ(g.hosts(), (std::vector<std::string>{"a"}));
  EXPECT_THROW(subworld(w, {1, 3}), std::invalid_argument);  // rank 2 is not a member
  EXPECT_THROW(subworld(w, {2, 0}), std::invalid_argument);  // not ascending
  EXPECT_THROW(subworld(w, {2, 4}), std::invalid_argument);  // no rank 4
}

}  // namespace
}  // namespace ibgpu
