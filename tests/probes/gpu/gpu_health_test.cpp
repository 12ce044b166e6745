// NVML values to the gpu.nvml.health record: units in keys, null when the
// GPU does not support a query, clock-event bits decoded.
#include "probes/gpu/gpu_health.h"

#include <gtest/gtest.h>

namespace ibgpu {
namespace {

TEST(GpuHealthResult, RecordsValuesUnderUnitKeysAndNullWhenUnsupported) {
  GpuHealth h;
  h.index = 3;
  h.pci_bus_id = "00000000:9A:00.0";
  h.temp_C = 47;
  h.pcie_width = 16;
  h.remap_pending = true;
  const ProbeResult r = gpu_health_result("n1", h);
  EXPECT_EQ(r.id, "gpu.nvml.health");
  EXPECT_EQ(r.scope.devices, std::vector<std::string>{"gpu3"});
  EXPECT_EQ(r.params.at("pci_bus_id"), "00000000:9A:00.0");
  EXPECT_EQ(r.metrics.at("temp_C").value, 47.0);
  EXPECT_EQ(r.metrics.at("pcie_width").value, 16.0);
  EXPECT_EQ(r.metrics.at("remap_pending").value, 1.0);
  // Unsupported: present as null, never 0 (which would read as "no errors").
  ASSERT_EQ(r.metrics.count("ecc_uncorrected_volatile"), 1u);
  EXPECT_FALSE(r.metrics.at("ecc_uncorrected_volatile").value.has_value());
  EXPECT_FALSE(r.metrics.at("thermal_slowdown").value.has_value());
}

TEST(GpuHealthResult, ClockEventBitsDecodeToSlowdownFlags) {
  struct Case {
    unsigned long long bits;
    double thermal, power;
  };
  for (const auto& c : {Case{0x0, 0, 0}, Case{0x1, 0, 0}, Case{0x4, 0, 0}, Case{0x8, 0, 0}, Case{0x20, 1, 0},
                        Case{0x40, 1, 0}, Case{0x80, 0, 1}, Case{0xC4, 1, 1}}) {
    SCOPED_TRACE(c.bits);
    GpuHealth h;
    h.clocks_event_reasons = c.bits;
    const ProbeResult r = gpu_health_result("n1", h);
    EXPECT_EQ(r.metrics.at("clocks_event_reasons").value, static_cast<double>(c.bits));
    EXPECT_EQ(r.metrics.at("thermal_slowdown").value, c.thermal);
    EXPECT_EQ(r.metrics.at("power_slowdown").value, c.power);
  }
}

}  // namespace
}  // namespace ibgpu
