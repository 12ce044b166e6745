// The kernel log parser on dmesg and /dev/kmsg text in the formats the
// kernel, the NVIDIA driver (NVRM) and mlx5 write.
#include "probes/kernel_log.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace ibgpu {
namespace {

namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
  std::ifstream in(fs::path(IBGPU_TEST_DATA) / "kernel_log" / name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(KernelLog, DmesgXidsWithTheirGpuAndCode) {
  const auto f = parse_kernel_log(fixture("dmesg.txt"));
  ASSERT_EQ(f.xids.size(), 2u);
  EXPECT_EQ(f.xids[0].pci, "0000:18:00");
  EXPECT_EQ(f.xids[0].xid, 13);
  EXPECT_EQ(f.xids[1].pci, "0000:2a:00");
  EXPECT_EQ(f.xids[1].xid, 79);
  EXPECT_EQ(f.lines, 13u);
}

TEST(KernelLog, AnXidTooLargeForAnIntIsSkippedNotAnError) {
  const auto f = parse_kernel_log(
      "NVRM: Xid (PCI:0000:58:00): 9999999999, pid=1\n"
      "NVRM: Xid (PCI:0000:59:00): 79, pid=2\n" +
      std::string(200000, 'x') + " mlx5_0 Link down\n");
  ASSERT_EQ(f.xids.size(), 1u);
  EXPECT_EQ(f.xids[0].xid, 79);
  EXPECT_TRUE(f.link_downs.empty());  // a 200,000-character line is no kernel record
}

TEST(KernelLog, RdmaLinkDropsButNotLinkUpsOrOtherNics) {
  const auto f = parse_kernel_log(fixture("dmesg.txt"));
  ASSERT_EQ(f.link_downs.size(), 2u);  // "link state changed to DOWN" and "Link down"; not e1000e, not "Link up"
  EXPECT_EQ(f.link_downs[0].device, "0000:17:00.0");
  EXPECT_EQ(f.link_downs[1].device, "0000:17:00.0");
}

TEST(KernelLog, KmsgRecordsWithEightDigitDomainsAndContinuationLines) {
  const auto f = parse_kernel_log(fixture("kmsg.txt"));
  ASSERT_EQ(f.xids.size(), 2u);
  EXPECT_EQ(f.xids[0].pci, "0000:3b:00");
  EXPECT_EQ(f.xids[0].xid, 48);
  EXPECT_EQ(f.xids[0].line.rfind("NVRM: Xid", 0), 0u);  // the record prefix is gone
  EXPECT_EQ(f.xids[1].xid, 63);
  ASSERT_EQ(f.link_downs.size(), 1u);
  EXPECT_EQ(f.link_downs[0].device, "mlx5_3");
  EXPECT_EQ(f.lines, 4u);  // " SUBSYSTEM=..." lines belong to the record before
}

TEST(KernelLog, HardwareXidsAreTheOnesThatPointAtTheGpu) {
  for (int xid : {48, 63, 64, 74, 79, 94, 95, 119}) EXPECT_TRUE(is_hardware_xid(xid)) << xid;
  for (int xid : {13, 31, 43, 45}) EXPECT_FALSE(is_hardware_xid(xid)) << xid;
}

TEST(KernelLog, ResultsGroupEventsPerDevice) {
  const auto results = kernel_log_results("n1", parse_kernel_log(fixture("dmesg.txt")), "fixture");
  ASSERT_EQ(results.size(), 4u);  // summary, two GPUs, one HCA
  EXPECT_EQ(results[0].id, kKernelLogProbe);
  EXPECT_EQ(results[0].metrics.at("xid_events").value, 2.0);
  EXPECT_EQ(results[0].metrics.at("link_down_events").value, 2.0);
  EXPECT_EQ(results[2].id, kKernelLogXidProbe);
  EXPECT_EQ(results[2].scope.devices, std::vector<std::string>{"0000:2a:00"});
  EXPECT_EQ(results[2].metrics.at("xid_hardware_events").value, 1.0);
  EXPECT_EQ(results[1].metrics.at("xid_hardware_events").value, 0.0);
  EXPECT_EQ(results[3].id, kKernelLogLinkProbe);
  EXPECT_EQ(results[3].metrics.at("link_down_events").value, 2.0);
}

TEST(KernelLog, UnreadableSourceIsSkippedWithTheReason) {
  const auto results = check_kernel_log("n1", "/nonexistent/kmsg");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, ProbeStatus::skipped);
  ASSERT_TRUE(results[0].reason.has_value());
  EXPECT_NE(results[0].reason->find("/nonexistent/kmsg"), std::string::npos);
}

}  // namespace
}  // namespace ibgpu
