#pragma once
// NVML loaded at run time through a small typed table. Only the entry points
// ibgpu uses are declared; their ABI is stable across driver versions.
#include <optional>
#include <string>
#include <vector>

#include "probes/dynlib.h"

namespace ibgpu {

struct GpuInfo {
  int index = 0;
  std::string name;
  std::string uuid;
  std::string pci_bus_id;  // 00000000:17:00.0 as NVML prints it
  std::optional<double> memory_total_GiB;
};

struct GpuSystem {
  std::string driver_version;
  std::optional<int> cuda_driver_version;  // e.g. 12040 for CUDA 12.4
  std::vector<GpuInfo> gpus;
};

// Owns the loaded library and the nvmlInit/nvmlShutdown pair.
class Nvml {
 public:
  // Never throws: a missing library or failed init leaves `ok()` false and
  // `why_not()` carrying the reason, e.g. "libnvidia-ml.so.1 not found".
  Nvml();
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool ok() const { return initialised_; }
  const std::string& why_not() const { return why_not_; }
  // Throws NvmlError when a query fails on a present driver.
  GpuSystem query() const;

 private:
  struct Table;
  DynLib lib_;
  Table* table_ = nullptr;
  bool initialised_ = false;
  std::string why_not_;
};

}  // namespace ibgpu
