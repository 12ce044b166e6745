// Port counter deltas between two reads of fixture sysfs trees (a port that
// erred and went down once between them).
#include "probes/ib/counters.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "tests/probes/sysfs_fixtures.h"

namespace ibgpu {
namespace {

namespace fs = std::filesystem;

TEST(PortCounters, DeltasAndHourlyRatesBetweenTwoReads) {
  const auto before = snapshot_counters(Sysfs(testing::kSysfsFixtures / "counters-before"), 1000.0);
  const auto after = snapshot_counters(Sysfs(testing::kSysfsFixtures / "counters-after"), 1000.0 + 1800.0);
  const auto results = counter_deltas("n1", before, after);
  ASSERT_EQ(results.size(), 1u);
  const ProbeResult& r = results[0];
  EXPECT_EQ(r.id, kPortCountersProbe);
  EXPECT_EQ(r.status, ProbeStatus::ok);
  EXPECT_EQ(r.scope.devices, std::vector<std::string>{"mlx5_0:1"});
  EXPECT_EQ(r.params.at("interval_s").get<double>(), 1800.0);
  EXPECT_EQ(r.metrics.at("symbol_error_delta").value, 27.0);
  EXPECT_EQ(r.metrics.at("symbol_error_per_hour").value, 54.0);
  EXPECT_EQ(r.metrics.at("link_downed_delta").value, 1.0);
  EXPECT_EQ(r.metrics.at("link_error_recovery_delta").value, 1.0);
  EXPECT_EQ(r.metrics.at("port_rcv_errors_delta").value, 0.0);
  EXPECT_EQ(r.metrics.at("port_xmit_wait_delta").value, 9261917.0 - 104857.0);
  EXPECT_EQ(r.metrics.count("port_xmit_data_delta"), 0u);  // traffic, not an error counter
}

TEST(PortCounters, CounterThatWentBackwardsIsNullAndListedAsReset) {
  const auto after = snapshot_counters(Sysfs(testing::kSysfsFixtures / "counters-after"), 0);
  auto later = snapshot_counters(Sysfs(testing::kSysfsFixtures / "counters-before"), 60);  // lower values: a reset
  const auto results = counter_deltas("n1", after, later);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_FALSE(results[0].metrics.at("symbol_error_delta").value.has_value());
  EXPECT_FALSE(results[0].metrics.at("link_downed_per_hour").value.has_value());
  const auto reset = results[0].params.at("reset");
  EXPECT_NE(std::find(reset.begin(), reset.end(), "symbol_error"), reset.end());
  EXPECT_EQ(results[0].metrics.at("port_rcv_errors_delta").value, 0.0);  // 0 -> 0 is no reset
}

TEST(PortCounters, PortThatDisappearedIsAnError) {
  const auto before = snapshot_counters(Sysfs(testing::kSysfsFixtures / "cx7-ndr"), 0);
  const auto after = snapshot_counters(Sysfs(testing::kSysfsFixtures / "counters-after"), 10);  // only mlx5_0 left
  const auto results = counter_deltas("n1", before, after);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, ProbeStatus::ok);
  EXPECT_EQ(results[1].scope.devices, std::vector<std::string>{"mlx5_1:1"});
  EXPECT_EQ(results[1].status, ProbeStatus::error);
}

}  // namespace
}  // namespace ibgpu
