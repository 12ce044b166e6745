// node.imex over real files in a saved tree: /proc/devices as the kernel prints it, a real
// character device made with mknod, a process's comm file, the daemon's node list; then judged as
// an NVL72 tray's profile asks.
#include "probes/imex.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/probe_kind.h"
#include "core/reason_codes.h"
#include "health/local_health.h"

namespace ibgpu {
namespace {

namespace fs = std::filesystem;

// The shape of /proc/devices on a GPU node with the driver loaded (numbers vary by node).
constexpr const char* kProcDevices =
    "Character devices:\n"
    "  1 mem\n"
    "  4 /dev/vc/0\n"
    "195 nvidia-frontend\n"
    "234 nvidia-caps-imex-channels\n"
    "235 nvidia-caps\n"
    "508 nvidia-uvm\n"
    "\n"
    "Block devices:\n"
    "  8 sd\n"
    "259 blkext\n";

TEST(Imex, MajorNumberFromProcDevices) {
  EXPECT_EQ(character_device_major(kProcDevices, "nvidia-caps-imex-channels"), 234);
  EXPECT_EQ(character_device_major(kProcDevices, "nvidia-caps"), 235);  // the whole name, not a prefix
  EXPECT_EQ(character_device_major(kProcDevices, "sd"), std::nullopt);  // a block device
  EXPECT_EQ(character_device_major("Character devices:\n  1 mem\n", "nvidia-caps-imex-channels"), std::nullopt);
  EXPECT_EQ(character_device_major("", "mem"), std::nullopt);
}

TEST(Imex, NodeListCountsAddressesNotCommentsOrBlankLines) {
  EXPECT_EQ(count_imex_nodes("172.27.58.70\n172.27.58.71\n\n# spare\n  172.27.58.72  \n"), 3);
  EXPECT_EQ(count_imex_nodes(""), 0);
  EXPECT_EQ(count_imex_nodes("# none yet\n"), 0);
}

// A tray's files under a root of its own.
class ImexTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("ibgpu_imex_" + std::to_string(::getpid()) + "_" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    write("proc/devices", kProcDevices);
    write("proc/1/comm", "systemd\n");
    write("proc/4242/comm", "nvidia-imex\n");
    write("proc/self/comm", "nvidia-imex\n");  // not a process number: never the daemon
    write("etc/nvidia-imex/nodes_config.cfg", "10.0.0.1\n10.0.0.2\n");
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  // The channel device, as root makes it; false where this process may not.
  bool make_channel(unsigned major_number, unsigned minor_number) {
    const fs::path path = root_ / kImexChannel0;
    fs::create_directories(path.parent_path());
    return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(major_number, minor_number)) == 0 &&
           ::chmod(path.c_str(), 0666) == 0;
  }
  ProbeResult result() const { return check_imex("tray1", root_).at(0); }

  fs::path root_;
};

HostInventory tray_host() {
  HostInventory h;
  h.name = "tray1";
  return h;
}

Profile imex_profile() {
  Profile p;
  p.gpu.imex_channel = p.gpu.imex_service = true;
  return p;
}

Verdict node_verdict_of(const std::vector<Verdict>& verdicts) {
  for (const auto& v : verdicts)
    if (v.entity.kind() == EntityKind::node) return v;
  throw std::logic_error("no node verdict");
}

std::vector<std::string> codes_of(const Verdict& v) {
  std::vector<std::string> out;
  for (const auto& r : v.reasons) out.emplace_back(to_string(r.code));
  return out;
}

TEST_F(ImexTree, AHealthyTrayHasItsChannelItsDaemonAndItsNodeList) {
  if (!make_channel(234, 0)) GTEST_SKIP() << "mknod: " << std::strerror(errno) << " (needs CAP_MKNOD)";
  const ProbeResult r = result();
  ASSERT_EQ(r.status, ProbeStatus::ok);
  EXPECT_EQ(typical(r, metrics::imex_channel0), 1.0);
  EXPECT_EQ(typical(r, metrics::imex_daemon), 1.0);
  EXPECT_EQ(typical(r, metrics::imex_nodes), 2.0);
  EXPECT_EQ(r.params["daemon_pid"], 4242);
  EXPECT_EQ(r.params["channel0_mode"], "0666");
  EXPECT_FALSE(r.params.contains("channel0_problem"));
  EXPECT_EQ(node_verdict_of(judge_local_health({tray_host()}, {r}, imex_profile())).state, HealthState::healthy);
}

TEST_F(ImexTree, NoChannelDeviceFailsTheTrayWhereTheProfileAsks) {
  const ProbeResult r = result();
  ASSERT_EQ(r.status, ProbeStatus::ok);
  EXPECT_EQ(typical(r, metrics::imex_channel0), 0.0);
  const std::string problem = r.params["channel0_problem"];
  EXPECT_NE(problem.find("no " + (root_ / kImexChannel0).string()), std::string::npos) << problem;
  const Verdict v = node_verdict_of(judge_local_health({tray_host()}, {r}, imex_profile()));
  EXPECT_EQ(v.state, HealthState::failed);
  EXPECT_EQ(codes_of(v), std::vector<std::string>{"IMEX_CHANNEL_MISSING"});
  // A profile that does not ask for IMEX records it and judges nothing.
  EXPECT_EQ(node_verdict_of(judge_local_health({tray_host()}, {r}, Profile{})).state, HealthState::healthy);
}

TEST_F(ImexTree, AChannelOfAnotherMajorNumberIsStale) {
  if (!make_channel(240, 0)) GTEST_SKIP() << "mknod: " << std::strerror(errno) << " (needs CAP_MKNOD)";
  const ProbeResult r = result();
  EXPECT_EQ(typical(r, metrics::imex_channel0), 0.0);
  EXPECT_NE(r.params["channel0_problem"].get<std::string>().find(
                "is device 240:0, where the driver's IMEX channel 0 is 234:0"),
            std::string::npos)
      << r.params.dump();
}

TEST_F(ImexTree, NoDaemonOrNoNodeListIsTheServiceDown) {
  if (!make_channel(234, 0)) GTEST_SKIP() << "mknod: " << std::strerror(errno) << " (needs CAP_MKNOD)";
  fs::remove(root_ / "etc/nvidia-imex/nodes_config.cfg");
  ProbeResult r = result();
  EXPECT_FALSE(typical(r, metrics::imex_nodes));
  Verdict v = node_verdict_of(judge_local_health({tray_host()}, {r}, imex_profile()));
  EXPECT_EQ(v.state, HealthState::failed);
  EXPECT_EQ(codes_of(v), std::vector<std::string>{"IMEX_SERVICE_DOWN"});
  EXPECT_EQ(v.reasons[0].message, "no IMEX node list (/etc/nvidia-imex/nodes_config.cfg)");

  fs::remove_all(root_ / "proc/4242");
  r = result();
  EXPECT_EQ(typical(r, metrics::imex_daemon), 0.0);
  v = node_verdict_of(judge_local_health({tray_host()}, {r}, imex_profile()));
  EXPECT_EQ(v.reasons.at(0).message, "no nvidia-imex process runs");
  // A site that starts IMEX per job asks for the channel alone.
  Profile per_job = imex_profile();
  per_job.gpu.imex_service = false;
  EXPECT_EQ(node_verdict_of(judge_local_health({tray_host()}, {r}, per_job)).state, HealthState::healthy);
}

TEST_F(ImexTree, ADriverWithoutImexChannelsIsSkippedAndUnknownOnlyWhereAsked) {
  write("proc/devices", "Character devices:\n195 nvidia-frontend\n\nBlock devices:\n  8 sd\n");
  const ProbeResult r = result();
  ASSERT_EQ(r.status, ProbeStatus::skipped);
  EXPECT_NE(r.reason->find("no nvidia-caps-imex-channels in /proc/devices"), std::string::npos) << *r.reason;
  EXPECT_EQ(node_verdict_of(judge_local_health({tray_host()}, {r}, imex_profile())).state, HealthState::unknown);
  EXPECT_EQ(node_verdict_of(judge_local_health({tray_host()}, {r}, Profile{})).state, HealthState::healthy);
}

}  // namespace
}  // namespace ibgpu
