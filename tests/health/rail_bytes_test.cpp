// A masked rail: a verbs pair whose bytes left through another port of its host is a finding on
// that rail, whatever bandwidth it read. What the operator acts on: the port failed for
// RAIL_MASKED, its node admitted without the rail, exit 1; a port without counters is no finding.
#include <gtest/gtest.h>

#include <map>

#include "core/probe_kind.h"
#include "health/judge.h"
#include "health/profile_file.h"
#include "tests/core/names.h"
#include "tests/health/synthetic_fleet.h"
#include "tests/health/unhealthy.h"

namespace ibgpu {
namespace {

using testing::unhealthy_entities;

constexpr int kHost = 3, kRail = 1;

Profile h100_profile_for_rails() {
  return load_profile_file(std::string(IBGPU_SOURCE_DIR) + "/profiles/hgx-h100-ndr.toml");
}

// Host 3's rail-1 writer: the pair wrote 1 GB; its own port counted `own`, rail 0's `other`.
ProbeResult rail_bytes(ProbeStatus status, double own, double other) {
  ProbeResult r;
  r.id = kRailBytesProbe;
  r.status = status;
  r.scope = Scope{{testing::host_name(kHost)}, {kHost * 8 + kRail}, {testing::rail_name(kRail)}};
  r.params = {{"side", "writer"}, {"counted", "sent"}, {"peer", "host node04 rank 33"}};
  if (status != ProbeStatus::ok) {
    r.reason = testing::rail_name(kRail) + " has no byte counters (no counters/port_xmit_data, no netdev statistics)";
    return r;
  }
  r.params["ports"] = {{testing::rail_name(kRail), own}, {testing::rail_name(0), other}};
  r.metrics[metrics::payload_bytes] = Metric::of(1e9);
  r.metrics[metrics::port_bytes] = Metric::of(own);
  r.metrics[metrics::port_share] = Metric::of(own / 1e9);
  return r;
}

Judgement judged_with(const ProbeResult& extra) {
  testing::FleetShape f;
  f.hosts = 8;
  f.rounds = 1;
  auto run = testing::synthetic_run(f);
  run.probes.push_back(extra);
  return judge(run.hosts, run.probes, h100_profile_for_rails());
}

TEST(RailBytes, ARailWhoseBytesLeftThroughAnotherPortIsFailedAndItsNodeAdmittedWithoutIt) {
  const Judgement j = judged_with(rail_bytes(ProbeStatus::ok, 2e6, 1.04e9));
  const std::string port = "hca_port node03/" + testing::rail_name(kRail);
  EXPECT_EQ(unhealthy_entities(j),
            (std::map<std::string, HealthState>{{port, HealthState::failed}, {"node node03", HealthState::degraded}}));
  for (const auto& v : j.verdicts)
    if (entity_text(v.entity) == port) {
      ASSERT_EQ(v.reasons.size(), 1u);
      EXPECT_EQ(v.reasons[0].code, ReasonCode::RAIL_MASKED);
      EXPECT_EQ(v.reasons[0].message,
                "the port sent 2.0 MB of the 1000.0 MB its pair with host node04 rank 33 wrote (share 0.00); " +
                    testing::rail_name(0) + " sent 1040.0 MB meanwhile");
    }
  EXPECT_EQ(j.summary.admit_degraded, std::vector<std::string>{"node03"});
  EXPECT_TRUE(j.summary.drain.empty());
  EXPECT_EQ(j.summary.exit_code, 1);
}

TEST(RailBytes, APortThatCarriedItsBytesOrHasNoCountersIsNoFinding) {
  for (const ProbeResult& r : {rail_bytes(ProbeStatus::ok, 1.04e9, 0), rail_bytes(ProbeStatus::skipped, 0, 0)}) {
    const Judgement j = judged_with(r);
    EXPECT_TRUE(unhealthy_entities(j).empty()) << r.params.dump();
    EXPECT_EQ(j.summary.exit_code, 0);
  }
}

}  // namespace
}  // namespace ibgpu
