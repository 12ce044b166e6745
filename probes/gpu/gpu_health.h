#pragma once
// The `gpu.nvml.health` probe: one result per GPU with the values NVML
// reports (ECC, retired pages, remapped rows, temperature, clock events,
// PCIe link, NVLink, persistence mode), each with its unit in the key.
#include <string>
#include <vector>

#include "core/result.h"
#include "probes/gpu/nvml.h"

namespace ibgpu {

// nvmlClocksEventReason* bits that mean the GPU is slowed by heat or by a
// power brake: degraded. SW power cap (0x4) is routine under load and idle
// (0x1) is no fault, so neither is judged.
inline constexpr unsigned long long kClocksHwSlowdown = 0x8;
inline constexpr unsigned long long kClocksSwThermalSlowdown = 0x20;
inline constexpr unsigned long long kClocksHwThermalSlowdown = 0x40;
inline constexpr unsigned long long kClocksHwPowerBrakeSlowdown = 0x80;

// Pure: the record of one GPU's health values (missing values are null). A
// GPU NVML could not answer for has no values: status `failed` when NVML said
// GPU_IS_LOST (judged GPU_LOST), `error` for any other code (PROBE_ERROR),
// with "gpu3: <call>: <NVML's text>" as its error.
ProbeResult gpu_health_result(const std::string& host, const GpuHealth& health);

// Loads NVML and records every GPU, one result each; one `skipped` result with
// the reason when NVML is unavailable, one host-wide `error` result when NVML
// cannot count the GPUs.
std::vector<ProbeResult> check_gpu_health(const std::string& host);
// The same with a loaded NVML (tests pass the injection library's).
std::vector<ProbeResult> check_gpu_health(const std::string& host, const Nvml& nvml);

}  // namespace ibgpu
