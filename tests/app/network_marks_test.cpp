#include <gtest/gtest.h>

#include "app/network.h"
#include "app/pipeline.h"

namespace ibgpu {
namespace {

ProbeResult pair_in_round(int a, int b, int round, ProbeStatus status, bool with_size = true) {
  ProbeResult r;
  r.id = "net.mpi.bw";
  r.status = status;
  r.scope.ranks = {a, b};
  r.scope.hosts = {"h" + std::to_string(a + 1), "h" + std::to_string(b + 1)};
  r.params["round"] = round;
  if (with_size) r.params["size_B"] = 1 << 20;
  if (status == ProbeStatus::timeout) {
    r.error = "stopped by a signal before the measurement ended";
    skip_for_stop(r);
  }
  return r;
}

bool judged(const ProbeResult& r) { return !r.params.contains("not_judged"); }

// Six hosts, rank 2 killed in round 1: the launcher's teardown cut rank 3's measurement with it,
// while ranks 0-1 and 4-5 finished theirs, one of them slowed. Round 0 ended before the stop.
TEST(MarkAfterStop, TheRoundTheStopCutAndThoseAfterAreNotJudgedTheRoundsBeforeAre) {
  std::vector<ProbeResult> results = {
      pair_in_round(0, 1, 0, ProbeStatus::ok), pair_in_round(2, 3, 0, ProbeStatus::ok),
      pair_in_round(0, 1, 1, ProbeStatus::ok), pair_in_round(3, 2, 1, ProbeStatus::timeout),
      pair_in_round(4, 5, 1, ProbeStatus::ok), pair_in_round(0, 4, 2, ProbeStatus::ok)};
  ASSERT_TRUE(cut_by_stop(results[3]));
  mark_after_stop(results);
  EXPECT_TRUE(judged(results[0]));
  EXPECT_TRUE(judged(results[1]));
  for (std::size_t i : {2u, 4u, 5u}) {
    ASSERT_FALSE(judged(results[i])) << i;
    EXPECT_EQ(results[i].params["not_judged"],
              "measured in round 1 or after, which the stop signal cut: the job's teardown slows what it overlaps");
  }
  EXPECT_EQ(results[3].status, ProbeStatus::skipped);  // the cut one stays skipped, not marked
  EXPECT_FALSE(results[3].params.contains("not_judged"));
}

TEST(MarkAfterStop, AMeetingTheStopEndedCutsItsRoundToo) {
  std::vector<ProbeResult> results = {pair_in_round(0, 1, 3, ProbeStatus::ok),
                                      pair_in_round(2, 3, 3, ProbeStatus::timeout, false)};
  mark_after_stop(results);
  EXPECT_FALSE(judged(results[0]));
}

TEST(MarkAfterStop, AStopAfterThePairRoundsOrAnErrorOfItsOwnMarksNothing) {
  std::vector<ProbeResult> results = {pair_in_round(0, 1, 0, ProbeStatus::ok), pair_in_round(2, 3, 1, ProbeStatus::ok),
                                      pair_in_round(4, 5, 1, ProbeStatus::error)};
  results[2].error = "MPI_Isend: error";
  ProbeResult gather;  // a result the stop cut that is no pair of a round (the all-reduce, the gather)
  gather.id = "net.allreduce";
  gather.error = "stopped while waiting";
  skip_for_stop(gather);
  results.push_back(gather);
  mark_after_stop(results);
  for (const auto& r : results) EXPECT_TRUE(judged(r)) << r.id;
  // An earlier mark (a lost peer's broken transfer) keeps its own reason.
  results[1].params["not_judged"] = "measured after host h4 (rank 3) was lost mid-transfer in round 0";
  results.push_back(pair_in_round(0, 2, 1, ProbeStatus::timeout));
  mark_after_stop(results);
  EXPECT_EQ(results[1].params["not_judged"], "measured after host h4 (rank 3) was lost mid-transfer in round 0");
  EXPECT_TRUE(judged(results[0]));  // round 0 ended before the stop
}

}  // namespace
}  // namespace ibgpu
