#pragma once
// Where the sysfs fixture trees are (tests/data/sysfs/README.md), for the tests that read them.
#include <filesystem>

namespace ibgpu::testing {

inline const std::filesystem::path kSysfsFixtures = std::filesystem::path(IBGPU_TEST_DATA) / "sysfs";

}  // namespace ibgpu::testing
