// The gpu.cuda.* probes on whatever this machine has: measurements with
// plausible numbers and an exact compute on a GPU, else `skipped` saying why
// (no kernels in this build, no driver, no device). Never a silent pass.
#include "probes/gpu/cuda_probes.h"

#include <gtest/gtest.h>

#include <set>

#include "probes/cuda/driver.h"

namespace ibgpu {
namespace {

TEST(CudaProbes, EveryProbeMeasuresOrSaysWhyNot) {
  CudaProbeSettings small;
  small.copy_bytes = std::size_t{16} << 20;
  small.mem_bytes = std::size_t{64} << 20;
  small.compute_elements = std::size_t{1} << 20;
  const auto results = run_cuda_probes("n1", {}, small);
  std::set<std::string> ids;
  for (const auto& r : results) {
    SCOPED_TRACE(r.id);
    ids.insert(r.id);
    ASSERT_EQ(r.scope.hosts, std::vector<std::string>{"n1"});
    if (r.status == ProbeStatus::skipped) {
      ASSERT_TRUE(r.reason.has_value());
      if (!missing_nvidia_driver().empty())
        EXPECT_EQ(*r.reason, missing_nvidia_driver());  // the cause, not the runtime's version complaint
      else if (cuda_kernels_built())
        EXPECT_TRUE(r.reason->find("cudaGetDeviceCount") != std::string::npos ||
                    r.reason->find("no CUDA device") != std::string::npos)
            << *r.reason;
      else
        EXPECT_NE(r.reason->find("without the CUDA toolkit"), std::string::npos) << *r.reason;
      continue;
    }
    ASSERT_EQ(r.status, ProbeStatus::ok) << r.error.value_or("");
    ASSERT_EQ(r.scope.devices.size(), 1u);
    for (const auto& [name, m] : r.metrics) {
      if (name.size() > 5 && name.substr(name.size() - 5) == "_GBps") {
        EXPECT_GT(m.value.value_or(0), 0.1) << name;
      }
    }
    if (r.id == kGpuComputeProbe) {
      EXPECT_EQ(r.metrics.at("wrong").value, 0.0);
      EXPECT_EQ(r.metrics.at("checked").value, static_cast<double>(small.compute_elements));
    }
  }
  EXPECT_EQ(ids, (std::set<std::string>{kGpuCopyBwProbe, kGpuMemBwProbe, kGpuComputeProbe}));
}

}  // namespace
}  // namespace ibgpu
