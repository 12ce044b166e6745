#include "cluster/gather.h"

#include <gtest/gtest.h>

#include <map>

#include "app/pipeline.h"
#include "cluster/world.h"
#include "core/inventory.h"

namespace ibgpu {
namespace {

// A clock that advances 10 ms every time it is read, so deadlines expire
// after a known number of polls without sleeping.
struct FakeClock {
  Clock::time_point now{};
  Clock::time_point tick() { return now += std::chrono::milliseconds(10); }
};

// Ranks deliver their payload after `polls` attempts; absent ranks never do.
// Ranks in `beating` send a heartbeat on every poll until they deliver.
class ScriptedMailbox : public Mailbox {
 public:
  std::map<int, std::pair<int, std::string>> script;  // rank -> (polls before delivery, payload)
  std::map<int, int> polls;
  std::map<int, int> beating;  // rank -> heartbeats left to send

  std::optional<std::string> try_receive(int source) override {
    ++polls[source];
    auto it = script.find(source);
    if (it == script.end()) return std::nullopt;
    if (polls[source] < it->second.first) return std::nullopt;
    beating.erase(source);
    return it->second.second;
  }
  std::vector<int> heard_from() override {
    std::vector<int> ranks;
    for (auto& [rank, left] : beating)
      if (left > 0) {
        --left;
        ranks.push_back(rank);
      }
    return ranks;
  }
};

GatherLimits limits(double silence_s, double overall_s = 3600) {
  GatherLimits l;
  l.silence = Seconds(silence_s);
  l.overall = Seconds(overall_s);
  l.poll_interval = std::chrono::microseconds(0);
  return l;
}

TEST(GatherAtRoot, ReadsTwoMailboxesAtOnceAsMpiAndTheLineAre) {
  // Rank 1 answers on the first (MPI), rank 2 on the second (the line) after beating there for a
  // while past the silence, rank 3 on neither.
  FakeClock clock;
  ScriptedMailbox mpi, line;
  mpi.script = {{1, {1, "one"}}};
  line.script = {{2, {40, "two"}}};
  line.beating = {{2, 40}};
  BothMailboxes both(mpi, line);
  const Gathered g = gather_at_root(both, 4, "zero", limits(0.1), [&] { return clock.tick(); });
  EXPECT_EQ(g.payloads[1], "one");
  EXPECT_EQ(g.payloads[2], "two");
  EXPECT_EQ(g.missing(), std::vector<int>{3});
}

TEST(GatherAtRoot, CollectsEveryRankThatAnswers) {
  FakeClock clock;
  ScriptedMailbox mailbox;
  mailbox.script = {{1, {1, "one"}}, {2, {5, "two"}}, {3, {3, "three"}}};
  const Gathered g = gather_at_root(mailbox, 4, "zero", limits(1), [&] { return clock.tick(); });
  ASSERT_EQ(g.payloads.size(), 4u);
  EXPECT_EQ(*g.payloads[0], "zero");
  EXPECT_EQ(*g.payloads[1], "one");
  EXPECT_EQ(*g.payloads[2], "two");
  EXPECT_EQ(*g.payloads[3], "three");
  EXPECT_TRUE(g.missing().empty());
}

TEST(GatherAtRoot, RankThatNeverAnswersIsMissingAndTheWaitEnds) {
  FakeClock clock;
  ScriptedMailbox mailbox;
  mailbox.script = {{1, {2, "one"}}, {3, {1, "three"}}};  // rank 2 is silent
  const Gathered g = gather_at_root(mailbox, 4, "zero", limits(0.5), [&] { return clock.tick(); });
  EXPECT_EQ(g.missing(), std::vector<int>{2});
  EXPECT_EQ(*g.payloads[1], "one");
  EXPECT_EQ(*g.payloads[3], "three");
  // Gave up at the deadline: rank 2 was polled until then, not forever.
  EXPECT_GT(mailbox.polls[2], 0);
  EXPECT_LT(mailbox.polls[2], 100);
}

TEST(GatherAtRoot, LateAnswerAfterTheDeadlineIsNotWaitedFor) {
  FakeClock clock;
  ScriptedMailbox mailbox;
  mailbox.script = {{1, {1000, "late"}}};
  const Gathered g = gather_at_root(mailbox, 2, "zero", limits(0.1), [&] { return clock.tick(); });
  EXPECT_EQ(g.missing(), std::vector<int>{1});
}

TEST(GatherAtRoot, BusyRankThatKeepsBeatingIsWaitedForPastTheSilenceLimit) {
  // Rank 1 needs 300 polls (far past a 0.1 s silence limit at 10 ms a read)
  // but beats all along: it is slow, not lost.
  FakeClock clock;
  ScriptedMailbox mailbox;
  mailbox.script = {{1, {300, "slow but alive"}}};
  mailbox.beating = {{1, 1000}};
  const Gathered g = gather_at_root(mailbox, 2, "zero", limits(0.1), [&] { return clock.tick(); });
  EXPECT_TRUE(g.missing().empty());
  EXPECT_EQ(*g.payloads[1], "slow but alive");
}

TEST(GatherAtRoot, RankThatStopsBeatingIsGivenUpAfterTheSilenceLimit) {
  FakeClock clock;
  ScriptedMailbox mailbox;
  mailbox.script = {{1, {100000, "never"}}};
  mailbox.beating = {{1, 50}};  // alive for a while, then silent (a SIGSTOP)
  const Gathered g = gather_at_root(mailbox, 2, "zero", limits(0.2), [&] { return clock.tick(); });
  EXPECT_EQ(g.missing(), std::vector<int>{1});
  EXPECT_GT(mailbox.polls[1], 50);   // waited while it beat
  EXPECT_LT(mailbox.polls[1], 200);  // and not much longer
}

TEST(GatherAtRoot, OverallLimitEndsEvenAnEndlessBeat) {
  FakeClock clock;
  ScriptedMailbox mailbox;
  mailbox.script = {{1, {1000000, "never"}}};
  mailbox.beating = {{1, 1000000}};
  const Gathered g = gather_at_root(mailbox, 2, "zero", limits(0.1, 5), [&] { return clock.tick(); });
  EXPECT_EQ(g.missing(), std::vector<int>{1});
}

TEST(GatherAtRoot, SingleRankNeedsNoMailbox) {
  ScriptedMailbox mailbox;
  const Gathered g = gather_at_root(mailbox, 1, "only", limits(1));
  EXPECT_EQ(*g.payloads[0], "only");
  EXPECT_TRUE(mailbox.polls.empty());
}

TEST(Assemble, SilentRankBecomesTimeoutNamingHostAndRank) {
  World world;
  world.size = 3;
  world.places = places_from_hosts({"n1", "n1", "n2"});
  RankResult r0;
  r0.rank = 0;
  r0.host = "n1";
  r0.inventory = HostInventory{};
  RankResult r1;
  r1.rank = 1;
  r1.host = "n1";
  const Report report = assemble(world, {to_json(r0).dump(), to_json(r1).dump(), std::nullopt}, "within 7.5 s");
  ASSERT_EQ(report.probes.size(), 1u);
  const ProbeResult& lost = report.probes[0];
  EXPECT_EQ(lost.id, "cluster.gather");
  EXPECT_EQ(lost.status, ProbeStatus::timeout);
  EXPECT_EQ(lost.scope.hosts, std::vector<std::string>{"n2"});
  EXPECT_EQ(lost.scope.ranks, std::vector<int>{2});
  ASSERT_TRUE(lost.error);
  EXPECT_NE(lost.error->find("rank 2 on host n2"), std::string::npos) << *lost.error;
  EXPECT_NE(lost.error->find("7.5 s"), std::string::npos) << *lost.error;
  ASSERT_EQ(report.hosts.size(), 2u);
  EXPECT_EQ(report.hosts[0].name, "n1");
  EXPECT_EQ(report.hosts[0].ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(report.hosts[1].name, "n2");  // still listed, though it sent nothing
  EXPECT_EQ(report.run.notes.size(), 1u);
}

TEST(Assemble, GarbledPayloadIsAnErrorNotACrash) {
  World world;
  world.size = 2;
  world.places = places_from_hosts({"a", "b"});
  RankResult r0;
  const Report report = assemble(world, {to_json(r0).dump(), std::string("{not json")}, "within 1 s");
  ASSERT_EQ(report.probes.size(), 1u);
  EXPECT_EQ(report.probes[0].status, ProbeStatus::error);
  EXPECT_EQ(report.probes[0].scope.ranks, std::vector<int>{1});
}

TEST(PlacesFromHosts, LocalRanksFollowHostNames) {
  const auto places = places_from_hosts({"a", "b", "a", "a", "b"});
  ASSERT_EQ(places.size(), 5u);
  EXPECT_EQ(places[0].local_rank, 0);
  EXPECT_EQ(places[1].local_rank, 0);
  EXPECT_EQ(places[2].local_rank, 1);
  EXPECT_EQ(places[3].local_rank, 2);
  EXPECT_EQ(places[4].local_rank, 1);
  EXPECT_EQ(places[0].local_size, 3);
  EXPECT_EQ(places[4].local_size, 2);
}

}  // namespace
}  // namespace ibgpu
