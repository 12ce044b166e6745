// --skip: which local checks a run leaves out, and the names it refuses.
#include "app/local_checks.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/probe_kind.h"

namespace ibgpu {
namespace {

TEST(LocalSkips, AFamilySkipsItsMembersAndNothingBeside) {
  const LocalSkips skip = parse_local_skips({"gpu.cuda", "node.kernel_log.xid"});
  EXPECT_TRUE(skip.skips(kGpuCopyBwProbe));
  EXPECT_TRUE(skip.skips(kGpuMemBwProbe));
  EXPECT_TRUE(skip.skips(kGpuComputeProbe));
  EXPECT_TRUE(skip.skips(kKernelLogXidProbe));
  EXPECT_FALSE(skip.skips(kGpuHealthProbe));
  EXPECT_FALSE(skip.skips(kKernelLogProbe));
  EXPECT_FALSE(skip.skips(kKernelLogLinkProbe));
  EXPECT_FALSE(skip.skips(kPortCountersProbe));
  EXPECT_FALSE(LocalSkips{{"gpu.cu"}}.skips(kGpuCopyBwProbe));  // whole names only
  EXPECT_EQ(skip.text(), "gpu.cuda (gpu.cuda.copy_bw, gpu.cuda.mem_bw, gpu.cuda.compute), node.kernel_log.xid");
}

TEST(LocalSkips, ANameThatIsNoLocalCheckIsAUsageError) {
  for (const char* bad : {"gpu.cu", "net.mpi.bw", "collective", "nosuch", ""}) {
    try {
      parse_local_skips({bad});
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("is no local check; they are gpu.nvml.health"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_NO_THROW(parse_local_skips({"ib.port.counters", "gpu"}));
}

}  // namespace
}  // namespace ibgpu
