#include "probes/collective/allreduce_results.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace ibgpu {
namespace {

World four_ranks_on_two_hosts(int rank) {
  World w;
  w.rank = rank;
  w.size = 4;
  w.mpi = true;
  w.places = places_from_hosts({"a", "a", "b", "b"});
  return w;
}

AllReduceCase one_mib_float(bool in_place) {
  return AllReduceCase{std::size_t{1} << 20, std::size_t{1} << 18, DType::f32, in_place, 20, 5, 4};
}

double value(const ProbeResult& r, const std::string& metric) {
  const auto it = r.metrics.find(metric);
  if (it == r.metrics.end()) throw std::out_of_range("no metric " + metric);
  return it->second.value.value();
}

TEST(AllReduceResults, IdAndParams) {
  EXPECT_EQ(allreduce_probe_id("nccl"), "collective.nccl.all_reduce");
  const auto params = allreduce_params(one_mib_float(true));
  EXPECT_EQ(params, (nlohmann::json{{"size_B", 1048576},
                                    {"count", 262144},
                                    {"dtype", "float"},
                                    {"in_place", true},
                                    {"iters", 20},
                                    {"warmup", 5},
                                    {"nranks", 4}}));
}

TEST(AllReduceResults, SummaryUsesTheAverageTimeForBandwidth) {
  const World w = four_ranks_on_two_hosts(0);
  const std::vector<RankOutcome> outcomes{{1e-3, 0}, {2e-3, 0}, {4e-3, 0}, {1e-3, 0}};
  const ProbeResult r = allreduce_summary("nccl", one_mib_float(false), outcomes, w);
  EXPECT_EQ(r.id, "collective.nccl.all_reduce");
  EXPECT_EQ(r.status, ProbeStatus::ok);
  EXPECT_EQ(r.scope.hosts, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.scope.ranks, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(r.params["in_place"], false);
  EXPECT_DOUBLE_EQ(value(r, "time_us"), 1000);  // rank 0's own
  EXPECT_DOUBLE_EQ(value(r, "time_us_min"), 1000);
  EXPECT_DOUBLE_EQ(value(r, "time_us_avg"), 2000);
  EXPECT_DOUBLE_EQ(value(r, "time_us_max"), 4000);
  EXPECT_DOUBLE_EQ(value(r, "slowest_rank"), 2);
  EXPECT_DOUBLE_EQ(value(r, "algbw_GBps"), 1048576 / 2e-3 / 1e9);
  EXPECT_DOUBLE_EQ(value(r, "busbw_GBps"), 1048576 / 2e-3 / 1e9 * 1.5);
  EXPECT_DOUBLE_EQ(value(r, "wrong_elements"), 0);
  EXPECT_DOUBLE_EQ(value(r, "wrong_elements_total"), 0);
  EXPECT_DOUBLE_EQ(value(r, "wrong_ranks"), 0);
}

TEST(AllReduceResults, SummaryCountsWrongRanksButStaysOk) {
  const World w = four_ranks_on_two_hosts(0);
  const std::vector<RankOutcome> outcomes{{1e-3, 0}, {1e-3, 0}, {1e-3, 7}, {1e-3, 1}};
  const ProbeResult r = allreduce_summary("mpi", one_mib_float(true), outcomes, w);
  EXPECT_EQ(r.status, ProbeStatus::ok);  // the ranks that saw wrong data report it themselves
  EXPECT_DOUBLE_EQ(value(r, "wrong_elements"), 0);
  EXPECT_DOUBLE_EQ(value(r, "wrong_elements_total"), 8);
  EXPECT_DOUBLE_EQ(value(r, "wrong_ranks"), 2);
}

TEST(AllReduceResults, AGroupOfRanksNamesTheRanksAsLaunched) {
  // The rail of local rank 1 on hosts a and b: launch ranks 1 and 3, group ranks 0 and 1.
  const World w = four_ranks_on_two_hosts(3);
  const World rail = subworld(w, {1, 3});
  AllReduceCase c = one_mib_float(false);
  c.nranks = 2;
  const ProbeResult r = allreduce_summary("mpi", c, {{1e-3, 0}, {3e-3, 0}}, subworld(w, {1, 3}));
  EXPECT_EQ(r.scope.ranks, (std::vector<int>{1, 3}));
  EXPECT_DOUBLE_EQ(value(r, "slowest_rank"), 3);
  EXPECT_DOUBLE_EQ(value(r, "busbw_GBps"), value(r, "algbw_GBps"));  // 2(n-1)/n = 1 for two ranks
  const ProbeResult wrong = wrong_data_result("mpi", c, 5, rail, "");
  EXPECT_EQ(wrong.scope.ranks, (std::vector<int>{3}));
  EXPECT_NE(wrong.error->find("host b rank 3"), std::string::npos) << *wrong.error;
}

TEST(AllReduceResults, UncheckedMeansMissingNotZero) {
  const World w = four_ranks_on_two_hosts(0);
  const std::vector<RankOutcome> outcomes(4, RankOutcome{1e-3, std::nullopt});
  const ProbeResult r = allreduce_summary("mpi", one_mib_float(true), outcomes, w);
  for (const char* m : {"wrong_elements", "wrong_elements_total", "wrong_ranks"}) {
    ASSERT_TRUE(r.metrics.count(m)) << m;
    EXPECT_FALSE(r.metrics.at(m).value.has_value()) << m;
  }
}

TEST(AllReduceResults, SummaryRefusesNoOutcomes) {
  EXPECT_THROW(allreduce_summary("mpi", one_mib_float(true), {}, four_ranks_on_two_hosts(0)), std::invalid_argument);
}

TEST(AllReduceResults, WrongDataNamesRankHostAndDevice) {
  const World w = four_ranks_on_two_hosts(3);
  const ProbeResult r = wrong_data_result("nccl", one_mib_float(true), 12, w, "cuda:1");
  EXPECT_EQ(r.id, "collective.nccl.all_reduce");
  EXPECT_EQ(r.status, ProbeStatus::failed);
  EXPECT_EQ(r.scope.hosts, (std::vector<std::string>{"b"}));
  EXPECT_EQ(r.scope.ranks, (std::vector<int>{3}));
  EXPECT_EQ(r.scope.devices, (std::vector<std::string>{"cuda:1"}));
  EXPECT_DOUBLE_EQ(value(r, "wrong_elements"), 12);
  EXPECT_EQ(r.error.value(),
            "12 of 262144 float elements wrong in the in-place all-reduce result on host b rank 3 (cuda:1)");
  const ProbeResult host = wrong_data_result("mpi", one_mib_float(false), 1, w, "");
  EXPECT_TRUE(host.scope.devices.empty());
  EXPECT_EQ(host.error.value(),
            "1 of 262144 float elements wrong in the out-of-place all-reduce result on host b rank 3");
}

}  // namespace
}  // namespace ibgpu
