#pragma once
// NVML loaded at run time through a small typed table. Only the entry points
// ibgpu uses are declared (probes/gpu/nvml_api.h); their ABI is stable across
// driver versions.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/inventory.h"
#include "probes/dynlib.h"

namespace ibgpu {

// Why NVML could not answer for one GPU: the call, NVML's text for its return
// code, and whether that code was NVML_ERROR_GPU_IS_LOST (the GPU fell off the bus).
struct NvmlFailure {
  std::string call;  // the exported name, e.g. nvmlDeviceGetHandleByIndex_v2
  std::string text;  // nvmlErrorString
  bool gpu_lost = false;
};

// Health values of one GPU as NVML reports them; nullopt where the GPU or
// driver does not support the query (NVML_ERROR_NOT_SUPPORTED, or an entry
// point this driver lacks). Any other answer stops the GPU's queries and is
// kept in `failure`: one GPU's error leaves the other GPUs measured.
struct GpuHealth {
  int index = 0;
  std::optional<NvmlFailure> failure;
  std::string pci_bus_id;
  std::optional<bool> ecc_enabled;
  std::optional<double> ecc_uncorrected_volatile;
  std::optional<double> ecc_uncorrected_aggregate;
  std::optional<double> retired_pages_dbe;    // pages retired for double-bit errors
  std::optional<double> retired_pages_sbe;    // pages retired for repeated single-bit errors
  std::optional<bool> retired_pages_pending;  // retirement waits for a reboot
  std::optional<double> remapped_rows_correctable;
  std::optional<double> remapped_rows_uncorrectable;
  std::optional<bool> remap_pending;  // a remap waits for a GPU reset
  std::optional<bool> remap_failed;   // the remapper ran out of spare rows
  std::optional<double> temp_C;
  std::optional<unsigned long long> clocks_event_reasons;  // nvmlClocksEventReason* bit mask
  std::optional<int> pstate;                               // 0 = P0 (full performance) ... 15
  std::optional<double> pcie_gen, pcie_gen_max, pcie_width, pcie_width_max;
  std::optional<int> nvlink_links_total;  // links the GPU has (0 without NVLink)
  std::optional<int> nvlink_links_up;
  std::vector<int> nvlinks_down;                // the links down, by number
  std::optional<double> nvlink_speed_min_MBps;  // the slowest link up (NVML's per-link speed field)
  std::optional<int> nvlink_slowest;            // its number
  // NVLink error counters of the links up, since the driver loaded or they were reset; unset where
  // the driver has neither the Hopper nor the NVLink 5 fields. Recoveries: a link that retrained
  // (Hopper: DL recovery; NVLink 5: link recovery events). Errors: Hopper's replays and CRC errors,
  // NVLink 5's packets received with errors.
  std::optional<unsigned long long> nvlink_recoveries, nvlink_errors;
  struct LinkErrors {
    int link = 0;
    unsigned long long recoveries = 0, errors = 0;
  };
  std::vector<LinkErrors> nvlink_link_errors;  // the links with any, by number
  // The GPU's registration with the NVLink fabric (the NVL72 rack's domain), where the driver has it:
  // unset state where NVML answers NOT_SUPPORTED (a GPU outside such a domain, an older driver).
  std::optional<int> fabric_state;   // NVML_GPU_FABRIC_STATE_*
  std::string fabric_error;          // a completed registration's error (nvmlErrorString), "" for none
  std::string fabric_cluster_uuid;   // the domain's cluster UUID, "" before registration completes
  std::optional<int> fabric_clique;  // the clique id within it
  std::optional<int> fabric_health;  // NVML_GPU_FABRIC_HEALTH_SUMMARY_* (0: the driver does not say)
  std::optional<bool> persistence_mode;
};

struct GpuSystem {
  std::string driver_version;
  std::optional<int> cuda_driver_version;  // e.g. 12040 for CUDA 12.4
  std::vector<GpuInfo> gpus;               // every GPU NVML counts, by index, even one it could not describe
  std::map<int, NvmlFailure> failures;     // per NVML index: why a GPU is described in part or not at all
};

// Owns the loaded library and the nvmlInit/nvmlShutdown pair.
class Nvml {
 public:
  // Never throws: a missing library or failed init leaves `ok()` false and
  // `why_not()` carrying the reason, e.g. "libnvidia-ml.so.1 not found".
  // The product loads NVML by its soname only (the driver's library, found by
  // the dynamic loader); tests pass the path of the injection library instead.
  Nvml();
  explicit Nvml(const std::string& library);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool ok() const { return initialised_; }
  const std::string& why_not() const { return why_not_; }
  // Throws CallError (the call, nvmlErrorString's text) when NVML cannot count
  // the GPUs; a GPU it cannot describe is listed with its failure.
  GpuSystem query() const;
  // Per-GPU health values; an unsupported query leaves its field empty, and a
  // GPU whose query failed has `failure` set. Throws CallError when NVML cannot count the GPUs.
  std::vector<GpuHealth> query_health() const;

  struct Table;  // the entry points, typed by nvml_api.h (defined in nvml.cpp)

 private:
  DynLib lib_;
  std::unique_ptr<Table> table_;
  bool initialised_ = false;
  std::string why_not_;
};

}  // namespace ibgpu
