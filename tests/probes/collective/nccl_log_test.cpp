// NCCL's own log, parsed (tests/data/nccl: lines in the format NCCL prints them), captured in a
// private file (the environment NCCL reads, set and restored), and judged: a socket fallback and a
// rail NCCL leaves out are findings of their own (ALLREDUCE_TRANSPORT_UNEXPECTED).
#include "probes/collective/nccl_log.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/probe_kind.h"
#include "health/judge.h"
#include "tests/health/synthetic_fleet.h"

namespace ibgpu {
namespace {

std::string nccl_data(const std::string& name) {
  std::ifstream in(std::string(IBGPU_TEST_DATA) + "/nccl/" + name);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << name;
  return text.str();
}

using Devices = std::vector<std::string>;
using Channels = std::map<std::string, int>;

TEST(NcclLog, IbAcrossTwoNodesWithGpuDirect) {
  const NcclTransportLog log = parse_nccl_log(nccl_data("ib_two_nodes.log"));
  EXPECT_EQ(log.network, "IB");
  EXPECT_EQ(log.net_devices, (Devices{"mlx5_0:1", "mlx5_1:1", "mlx5_2:1", "mlx5_3:1"}));
  EXPECT_EQ(log.channels, (Channels{{"NET/IB", 3}, {"P2P/CUMEM", 2}}));  // the ring-order line is no connection
  EXPECT_EQ(log.net_channels, 3);
  EXPECT_EQ(log.gdr_channels, 3);
  EXPECT_EQ(log.nodes, 2);
  EXPECT_EQ(log.mnnvl, false);
  EXPECT_EQ(log.nvls, true);
  EXPECT_EQ(log.lines, 15u);
}

TEST(NcclLog, ASocketFallbackUnderALaunchersPrefix) {
  const NcclTransportLog log = parse_nccl_log(nccl_data("socket_fallback.log"));
  EXPECT_EQ(log.network, "Socket");
  EXPECT_EQ(log.net_devices, (Devices{"eth0", "ib0"}));
  EXPECT_EQ(log.channels, (Channels{{"NET/Socket", 4}}));
  EXPECT_EQ(log.gdr_channels, 0);
  EXPECT_EQ(log.nodes, 2);
  EXPECT_EQ(log.nvls, std::nullopt);
}

TEST(NcclLog, NcclsWarningOfABrokenQueuePairGoesWithTheRanksError) {
  const NcclTransportLog log = parse_nccl_log(nccl_data("remote_error.log"));
  const std::string completion =
      "NET/IB : Got completion from peer 10.0.0.4<48213> with status=12 opcode=0 len=0 vendor err 129 (Send)";
  EXPECT_EQ(log.warnings, std::vector<std::string>{completion});
  EXPECT_EQ(log.lines, 10u);  // the INFO lines; the warning is not one of them
  ProbeResult error;
  error.status = ProbeStatus::error;
  error.error = "ncclAllReduce: remote process exited or there was a network error (6)";
  ProbeResult fine;
  attach_nccl_warnings(error, log);
  attach_nccl_warnings(fine, log);
  EXPECT_EQ(*error.error,
            "ncclAllReduce: remote process exited or there was a network error (6) (NCCL warned: " + completion + ")");
  EXPECT_EQ(error.params.at("nccl_warnings"), nlohmann::json::array({completion}));
  EXPECT_FALSE(fine.params.contains("nccl_warnings"));
  // The last four, each cut at 400 characters: a log that warns without end stays bounded.
  std::string flood;
  for (int i = 0; i < 10; ++i) flood += "h:1:1 [0] NCCL WARN " + std::to_string(i) + std::string(1000, 'x') + "\n";
  const NcclTransportLog many = parse_nccl_log(flood);
  ASSERT_EQ(many.warnings.size(), 4u);
  EXPECT_EQ(many.warnings.front().substr(0, 2), "6x");
  EXPECT_EQ(many.warnings.back().size(), 400u);
}

TEST(NcclLog, MergedPortsSharedMemoryAndDirectPointers) {
  const NcclTransportLog log = parse_nccl_log(nccl_data("merged_ports.log"));
  EXPECT_EQ(log.net_devices, (Devices{"mlx5_0:1", "mlx5_1:1", "mlx5_4:1"}));
  EXPECT_EQ(log.channels, (Channels{{"NET/IB", 1}, {"P2P/direct pointer", 1}, {"SHM", 1}}));
  EXPECT_EQ(log.gdr_channels, 0);  // NET without GPUDirect RDMA
}

TEST(NcclLog, MultiNodeNvlinkOnATray) {
  const NcclTransportLog log = parse_nccl_log(nccl_data("mnnvl_tray.log"));
  EXPECT_EQ(log.network, "IB");
  EXPECT_EQ(log.mnnvl, true);
  EXPECT_EQ(log.channels, (Channels{{"P2P/MNNVL", 2}}));
  EXPECT_EQ(log.net_channels, 0);
  EXPECT_EQ(log.nvls, true);
}

TEST(NcclLog, NothingToSayIsEmpty) {
  const NcclTransportLog log = parse_nccl_log("plain text\nNCCL WARN something\n\n");
  EXPECT_TRUE(log.network.empty() && log.net_devices.empty() && log.channels.empty());
  EXPECT_EQ(log.lines, 0u);
}

// The capture sets what NCCL reads, into a file with no name (nothing left on disk however the
// process ends), reads what NCCL appends (whole lines only), takes the variables back once NCCL has
// written, and keeps the devices NCCL lists once a process.
TEST(NcclLogCapture, OwnsNcclsLogWhileItLives) {
  ::unsetenv("NCCL_DEBUG");
  ::unsetenv("NCCL_DEBUG_FILE");
  std::string path;
  {
    NcclLogCapture capture;
    ASSERT_EQ(capture.why_off(), "");
    path = capture.path();
    EXPECT_TRUE(path.starts_with("/proc/self/fd/")) << path;
    EXPECT_STREQ(std::getenv("NCCL_DEBUG"), "INFO");
    EXPECT_STREQ(std::getenv("NCCL_DEBUG_SUBSYS"), "INIT,NET");
    EXPECT_EQ(std::string(std::getenv("NCCL_DEBUG_FILE")), path);
    const std::string target = std::filesystem::read_symlink(path).string();
    EXPECT_NE(target.find("(deleted)"), std::string::npos) << target;  // no name on disk

    EXPECT_TRUE(capture.take().net_devices.empty());  // NCCL has written nothing yet
    EXPECT_STREQ(std::getenv("NCCL_DEBUG"), "INFO");  // still NCCL's to read
    // NCCL opens the file by its name ("w"), as it does NCCL_DEBUG_FILE.
    std::ofstream(path) << nccl_data("ib_two_nodes.log") << "gpu-a01:20417:20480 [0] NCCL INFO Using netw";
    NcclTransportLog log = capture.take();
    EXPECT_EQ(log.network, "IB");
    EXPECT_EQ(log.net_devices.size(), 4u);
    EXPECT_EQ(std::getenv("NCCL_DEBUG"), nullptr);  // taken back: no child inherits them
    EXPECT_EQ(std::getenv("NCCL_DEBUG_SUBSYS"), nullptr);
    EXPECT_EQ(std::getenv("NCCL_DEBUG_FILE"), nullptr);
    // The next communicator: the half line completed, no device list of its own.
    std::ofstream(path, std::ios::app)
        << "ork IB\ngpu-a01:20417:20480 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0 "
           "MNNVL 0\ngpu-a01:20417:20480 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/1/GDRDMA\n";
    log = capture.take();
    EXPECT_EQ(log.network, "IB");
    EXPECT_EQ(log.channels, (Channels{{"NET/IB", 1}}));
    EXPECT_EQ(log.net_devices.size(), 4u);  // kept from the first
    EXPECT_EQ(capture.take().lines, 0u);    // nothing new
  }
  EXPECT_FALSE(std::filesystem::exists(path));  // the descriptor is closed: the file is gone
  EXPECT_EQ(std::getenv("NCCL_DEBUG"), nullptr);
}

TEST(NcclLogCapture, LeavesACallersLogAlone) {
  ::setenv("NCCL_DEBUG", "WARN", 1);
  {
    NcclLogCapture capture;
    EXPECT_EQ(capture.why_off(), "NCCL_DEBUG=WARN set by the caller: NCCL's log is the caller's, not read");
    EXPECT_STREQ(std::getenv("NCCL_DEBUG"), "WARN");
    EXPECT_EQ(std::getenv("NCCL_DEBUG_FILE"), nullptr);
    EXPECT_EQ(capture.take().lines, 0u);
  }
  EXPECT_STREQ(std::getenv("NCCL_DEBUG"), "WARN");
  ::unsetenv("NCCL_DEBUG");
}

// Two hosts with two active NDR rails each (mlx5_0:1, mlx5_1:1), and no GPU to judge.
std::vector<HostInventory> two_rail_hosts() {
  testing::FleetShape shape;
  shape.gpus = 0;
  shape.rails = 2;
  return {testing::make_host(shape, 0), testing::make_host(shape, 1)};
}

ProbeResult record(const std::string& host, int rank, const std::string& log_name) {
  ProbeResult r = nccl_transport_result(host, rank, "cuda:0", parse_nccl_log(nccl_data(log_name)));
  r.params["placement"] = "rail";
  r.params["group"] = "local rank 0";
  return r;
}

const Verdict& verdict_of(const Judgement& j, EntityKind kind, const std::string& id) {
  for (const auto& v : j.verdicts)
    if (v.entity.kind() == kind && v.entity.id() == id) return v;
  throw std::logic_error("no verdict for " + id);
}

TEST(NcclTransportJudge, ASocketFallbackFailsTheNodeWhereTheProfileExpectsIb) {
  Profile profile;
  profile.allreduce.network = "IB";
  std::vector<ProbeResult> probes{record("node00", 0, "merged_ports.log"), record("node01", 1, "socket_fallback.log")};
  probes[0].params["net_devices"] = Devices{"mlx5_0:1", "mlx5_1:1"};  // a1: both rails
  const Judgement j = judge(two_rail_hosts(), probes, profile);
  const Verdict& a2 = verdict_of(j, EntityKind::node, "node01");
  EXPECT_EQ(a2.state, HealthState::failed);
  EXPECT_EQ(*a2.action, Action::drain);
  ASSERT_EQ(a2.reasons.size(), 1u);
  EXPECT_EQ(a2.reasons[0].code, ReasonCode::ALLREDUCE_TRANSPORT_UNEXPECTED);
  EXPECT_EQ(a2.reasons[0].message,
            "NCCL took network Socket across hosts (rank 1, rail all-reduce (local rank 0)), not IB as the profile "
            "expects: over eth0, ib0");
  EXPECT_EQ(verdict_of(j, EntityKind::node, "node00").state, HealthState::healthy);
  EXPECT_EQ(j.summary.exit_code, 2);

  // Without [allreduce].network the records are kept and nothing is judged.
  const Judgement unjudged = judge(two_rail_hosts(), probes, Profile{});
  EXPECT_EQ(verdict_of(unjudged, EntityKind::node, "node01").state, HealthState::healthy);
}

TEST(NcclTransportJudge, ARailNcclLeavesOutIsDegraded) {
  Profile profile;
  profile.allreduce.network = "IB";
  std::vector<ProbeResult> probes{record("node00", 0, "merged_ports.log"), record("node01", 1, "merged_ports.log")};
  probes[0].params["net_devices"] = Devices{"mlx5_0:1", "mlx5_1:1"};
  probes[1].params["net_devices"] = Devices{"mlx5_0:1"};  // a2's NCCL did not list mlx5_1
  probes[1].params["network"] = "IBext_v8";               // an IB plugin is IB
  const Judgement j = judge(two_rail_hosts(), probes, profile);
  const Verdict& port = verdict_of(j, EntityKind::hca_port, "node01/mlx5_1:1");
  EXPECT_EQ(port.state, HealthState::degraded);
  ASSERT_EQ(port.reasons.size(), 1u);
  EXPECT_EQ(port.reasons[0].message,
            "NCCL's IB devices on this host (mlx5_0:1) leave this rail out: its all-reduce traffic does not cross it");
  const Verdict& a2 = verdict_of(j, EntityKind::node, "node01");
  EXPECT_EQ(*a2.action, Action::admit_degraded);
  EXPECT_TRUE(a2.excluded.empty());  // degraded, kept in use as any degraded port is
  EXPECT_EQ(verdict_of(j, EntityKind::hca_port, "node00/mlx5_1:1").state, HealthState::healthy);
}

}  // namespace
}  // namespace ibgpu
