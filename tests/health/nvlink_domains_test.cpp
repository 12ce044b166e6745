// NVLink domains across hosts: a node whose GPUs joined two domains, and with Slurm's block
// topology a node whose domain is not its block's, are NVLINK_DOMAIN_SPLIT (degraded: admitted
// degraded); clean racks and the tree form give no finding.
#include "health/nvlink_domains.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/fabric_topology.h"
#include "health/admission.h"
#include "health/thresholds.h"
#include "probes/gpu/gpu_health.h"

namespace ibgpu {
namespace {

const std::string kRackA = "8c1f4a2e-5b3d-4e6f-9a71-0b2c3d4e5f60";
const std::string kRackB = "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9";

// One GPU's health record, registered in (uuid, clique); uuid "" for a GPU that did not register.
ProbeResult gpu(const std::string& host, int index, const std::string& uuid, int clique = 1) {
  GpuHealth h;
  h.index = index;
  h.fabric_state = uuid.empty() ? 1 : 3;
  h.fabric_cluster_uuid = uuid;
  if (!uuid.empty()) h.fabric_clique = clique;
  return gpu_health_result(host, h);
}

// Four GPUs of `host` in one domain.
void tray(std::vector<ProbeResult>& out, const std::string& host, const std::string& uuid, int clique = 1) {
  for (int i = 0; i < 4; ++i) out.push_back(gpu(host, i, uuid, clique));
}

const Verdict* find_verdict(const std::vector<Verdict>& v, const Entity& e) {
  const auto it = std::find_if(v.begin(), v.end(), [&](const Verdict& x) { return x.entity == e; });
  return it == v.end() ? nullptr : &*it;
}

std::vector<Verdict> judged(const std::vector<ProbeResult>& probes, const FabricTopology* topology) {
  VerdictBook book;
  judge_nvlink_domains(book, probes, topology);
  return book.take();
}

const FabricTopology kRacks = parse_topology_conf(
    "BlockName=rack1 Nodes=t[1-3]\nBlockName=rack2 Nodes=t[4-5]\nBlockName=rack3 Nodes=t[6-7]\n", "racks.conf");

TEST(NvlinkDomains, CleanRacksGiveNoFinding) {
  std::vector<ProbeResult> p;
  for (const char* t : {"t1", "t2", "t3"}) tray(p, t, kRackA);
  for (const char* t : {"t4", "t5"}) tray(p, t, kRackB);
  tray(p, "t6", kRackA, 2);
  tray(p, "t7", kRackA, 2);
  EXPECT_TRUE(judged(p, &kRacks).empty());
  p.push_back(gpu("t8", 0, ""));  // not registered: the local check's, no domain here
  EXPECT_TRUE(judged(p, &kRacks).empty());
}

TEST(NvlinkDomains, ANodeWhoseGpusJoinedTwoCliquesIsSplit) {
  std::vector<ProbeResult> p;
  tray(p, "t1", kRackA);
  for (int i = 0; i < 3; ++i) p.push_back(gpu("t2", i, kRackA));
  p.push_back(gpu("t2", 3, kRackA, 2));
  const auto v = judged(p, nullptr);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].entity, Entity::node("t2"));
  EXPECT_EQ(v[0].state, HealthState::degraded);
  ASSERT_EQ(v[0].reasons.size(), 1u);
  EXPECT_EQ(v[0].reasons[0].code, ReasonCode::NVLINK_DOMAIN_SPLIT);
  EXPECT_EQ(v[0].reasons[0].message, "its GPUs joined 2 NVLink domains (gpu0,gpu1,gpu2 in " + kRackA +
                                         "/clique 1; gpu3 in " + kRackA + "/clique 2): rack jobs cannot span them");
  // Admitted degraded, with its GPUs: a node's own jobs run.
  std::vector<HostInventory> hosts(2);
  hosts[0].name = "t1";
  hosts[1].name = "t2";
  auto verdicts = v;
  decide_admission(verdicts, hosts);
  EXPECT_EQ(verdicts[0].action, Action::admit_degraded);
}

TEST(NvlinkDomains, ANodeInAnotherDomainThanItsBlockIsNamed) {
  std::vector<ProbeResult> p;
  tray(p, "t1", kRackA);
  tray(p, "t2", kRackA);
  tray(p, "t3", kRackB);  // cabled into rack1 by the file, registered in rack B's domain
  tray(p, "t4", kRackB);
  tray(p, "t5", kRackB);
  const auto v = judged(p, &kRacks);
  ASSERT_EQ(v.size(), 2u);  // t3, and its block's domain short of it
  const Verdict& t3 = *find_verdict(v, Entity::node("t3"));
  EXPECT_EQ(t3.state, HealthState::degraded);
  EXPECT_EQ(t3.reasons[0].message, "in NVLink domain " + kRackB +
                                       "/clique 1, where 2 of the 3 nodes of its block rack1 joined " + kRackA +
                                       "/clique 1");
  EXPECT_NE(find_verdict(v, Entity::leaf(EntityKind::leaf_switch, "rack1", "")), nullptr);
  // The tree form says nothing of domains: no block check.
  const FabricTopology tree = parse_topology_conf("SwitchName=leaf1 Nodes=t[1-5]\n", "tree.conf");
  EXPECT_TRUE(judged(p, &tree).empty());
}

// The block's domain short of trays the run checked: a tray not registered counts out, a tray of
// the block not in the run does not.
TEST(NvlinkDomains, ABlockWhoseDomainLacksCheckedTraysIsShort) {
  std::vector<ProbeResult> p;
  tray(p, "t1", kRackA);
  tray(p, "t2", kRackA);
  tray(p, "t3", "");  // not registered (the local check's GPU_FABRIC_NOT_REGISTERED)
  const auto v = judged(p, &kRacks);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].entity, Entity::leaf(EntityKind::leaf_switch, "rack1", ""));
  EXPECT_EQ(v[0].state, HealthState::degraded);
  ASSERT_EQ(v[0].reasons.size(), 1u);
  EXPECT_EQ(v[0].reasons[0].code, ReasonCode::NVLINK_DOMAIN_SHORT);
  EXPECT_EQ(
      v[0].reasons[0].message,
      "NVLink domain " + kRackA + "/clique 1 holds 2 of the 3 nodes of block rack1 checked in this run (racks.conf)");
  // Only t1 and t2 in the run: the domain holds all the block's trays that were checked.
  p.erase(std::remove_if(p.begin(), p.end(), [](const ProbeResult& r) { return r.scope.hosts[0] == "t3"; }), p.end());
  EXPECT_TRUE(judged(p, &kRacks).empty());
}

TEST(NvlinkDomains, ABlockSplitEvenlyNamesEachOfItsNodes) {
  std::vector<ProbeResult> p;
  tray(p, "t4", kRackA);
  tray(p, "t5", kRackB);
  const auto v = judged(p, &kRacks);
  ASSERT_EQ(v.size(), 2u);
  for (const auto& verdict : v) {
    EXPECT_EQ(verdict.state, HealthState::degraded);
    EXPECT_NE(verdict.reasons[0].message.find("block rack2 (racks.conf) is split evenly between 2 NVLink domains"),
              std::string::npos)
        << verdict.reasons[0].message;
  }
}

TEST(NvlinkDomains, EachNodesDomainIsTheOneMostOfItsGpusJoined) {
  std::vector<ProbeResult> p;
  tray(p, "t1", kRackA);
  for (int i = 0; i < 3; ++i) p.push_back(gpu("t2", i, kRackB, 7));  // three of four: its domain
  p.push_back(gpu("t2", 3, kRackA));
  for (int i = 0; i < 4; ++i) p.push_back(gpu("t3", i, kRackA, i < 2 ? 1 : 2));  // split evenly: none
  tray(p, "t4", "");                                                             // not registered: none
  const auto domains = node_nvlink_domains(p);
  EXPECT_EQ(domains, (std::map<std::string, NvlinkDomain>{{"t1", {kRackA, 1}}, {"t2", {kRackB, 7}}}));
  EXPECT_EQ(domains.at("t2").text(), kRackB + "/clique 7");
}

// An all-reduce across trays: NCCL's (or MPI's) at 1 GiB, over `hosts`, at `busbw`.
ProbeResult allreduce(const std::vector<std::string>& hosts, double busbw, const char* id = kNcclAllReduceProbe) {
  ProbeResult r;
  r.id = id;
  r.scope.hosts = hosts;
  r.params = {{"size_B", std::size_t{1} << 30},
              {"in_place", false},
              {"nranks", hosts.size()},
              {"placement", "rail"},
              {"group", "local rank 0"}};
  r.metrics[metrics::busbw_GBps] = Metric::of(busbw);
  return r;
}

Profile tray_profile() {
  Profile p;
  p.allreduce.rail_busbw_GBps = Limit{30.0, 40.0};
  p.allreduce.domain_busbw_GBps = Limit{400.0, 700.0};
  return p;
}

// The all-reduce's one busbw measurement, and its finding against the profile's floor.
struct Judged {
  const Limit* limit = nullptr;
  std::string figure;
  HealthState state = HealthState::healthy;
  std::string not_applied;
};
Judged judge_allreduce(const std::vector<ProbeResult>& probes, const Profile& profile) {
  for (const Measurement& m : extract_measurements(probes, profile))
    if (m.probe->kind().all_reduce()) return {m.limit, m.figure.text(), judge_absolute(m).state, m.floor_not_applied};
  ADD_FAILURE() << "no all-reduce measurement";
  return {};
}

// Within one NVLink domain NCCL takes NVLink between trays: the group is held to the domain's
// floor and compared with its like, not with groups across the rails.
TEST(NvlinkDomains, AnAllReduceWithinOneDomainIsHeldToTheDomainsFloor) {
  const Profile profile = tray_profile();
  std::vector<ProbeResult> rack;
  for (const char* host : {"t1", "t2", "t3", "t4"}) tray(rack, host, kRackA);
  const std::vector<std::string> four{"t1", "t2", "t3", "t4"};

  auto with = [&](ProbeResult r) {
    auto probes = rack;
    probes.push_back(std::move(r));
    return judge_allreduce(probes, profile);
  };
  // 45 GB/s passes the rails' floor; within the domain it is the rails' speed, not NVLink's.
  Judged j = with(allreduce(four, 45));
  EXPECT_EQ(j.limit, &profile.allreduce.domain_busbw_GBps);
  EXPECT_NE(j.figure.find("/nvlink_domain"), std::string::npos) << j.figure;
  EXPECT_EQ(j.state, HealthState::failed);
  EXPECT_EQ(with(allreduce(four, 650)).state, HealthState::degraded);
  EXPECT_EQ(with(allreduce(four, 850)).state, HealthState::healthy);

  // Not within one domain: the rails' floor, and no domain in the figure.
  struct Case {
    const char* name;
    std::vector<ProbeResult> probes;
  };
  auto unregistered = rack;
  unregistered[13] = gpu("t4", 1, "");  // one GPU of t4 did not register: NCCL cannot span it
  auto two_racks = rack;
  for (int i = 12; i < 16; ++i) two_racks[static_cast<std::size_t>(i)] = gpu("t4", i - 12, kRackB);
  ProbeResult off = allreduce(four, 45);
  off.params["nccl_mnnvl_enable"] = "0";  // the run turned multi-node NVLink off
  const std::vector<Case> cases{
      {"a GPU not registered", unregistered},
      {"a tray of another rack", two_racks},
      {"no fabric records", {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto probes = c.probes;
    probes.push_back(allreduce(four, 45));
    j = judge_allreduce(probes, profile);
    EXPECT_EQ(j.limit, &profile.allreduce.rail_busbw_GBps);
    EXPECT_EQ(j.figure.find("nvlink"), std::string::npos) << j.figure;
    EXPECT_EQ(j.state, HealthState::healthy);
  }
  j = with(off);
  EXPECT_EQ(j.limit, &profile.allreduce.rail_busbw_GBps);
  // MPI's all-reduce never crosses NVLink between hosts.
  EXPECT_EQ(with(allreduce(four, 45, kMpiAllReduceProbe)).figure.find("nvlink"), std::string::npos);

  // A profile without a domain floor holds such a group to nothing, and says why.
  Profile rails_only = profile;
  rails_only.allreduce.domain_busbw_GBps = {};
  auto probes = rack;
  probes.push_back(allreduce(four, 45));
  j = judge_allreduce(probes, rails_only);
  EXPECT_EQ(j.state, HealthState::healthy);
  EXPECT_EQ(j.not_applied, "ran within NVLink domain " + kRackA +
                               "/clique 1, over NVLink, not the rails: [allreduce.rail_busbw_GBps] does not judge "
                               "it, and the profile sets no [allreduce.domain_busbw_GBps]");
}

}  // namespace
}  // namespace ibgpu
