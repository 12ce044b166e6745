#include "probes/gpu/gpu_health.h"

#include "core/inventory.h"
#include "probes/gpu/nvml_api.h"

namespace ibgpu {

namespace {

Metric number(const std::optional<double>& v) { return v ? Metric::of(*v) : Metric::missing(); }
Metric flag(const std::optional<bool>& v) { return v ? Metric::of(*v ? 1.0 : 0.0) : Metric::missing(); }
Metric integer(const std::optional<int>& v) { return v ? Metric::of(static_cast<double>(*v)) : Metric::missing(); }
Metric count(const std::optional<unsigned long long>& v) {
  return v ? Metric::of(static_cast<double>(*v)) : Metric::missing();
}

const char* fabric_state_text(int state) {
  switch (state) {
    case NVML_GPU_FABRIC_STATE_NOT_STARTED:
      return "not started";
    case NVML_GPU_FABRIC_STATE_IN_PROGRESS:
      return "in progress";
    case NVML_GPU_FABRIC_STATE_COMPLETED:
      return "completed";
    default:
      return "unknown";
  }
}

}  // namespace

ProbeResult gpu_health_result(const std::string& host, const GpuHealth& h) {
  ProbeResult r;
  r.id = kGpuHealthProbe;
  r.scope = Scope{{host}, {}, {gpu_name(h.index)}};
  r.params = {{"gpu_index", h.index}, {"pci_bus_id", h.pci_bus_id}};
  if (h.failure) {
    // NVML could not answer for this GPU: no values to record (a half-read
    // GPU is not judged on the half), the call and NVML's text instead.
    r.status = h.failure->gpu_lost ? ProbeStatus::failed : ProbeStatus::error;
    r.error = gpu_name(h.index) + ": " + h.failure->call + ": " + h.failure->text;
    r.params["nvml_call"] = h.failure->call;
    return r;
  }
  auto& m = r.metrics;
  m[metrics::ecc_enabled] = flag(h.ecc_enabled);
  m[metrics::ecc_uncorrected_volatile] = number(h.ecc_uncorrected_volatile);
  m[metrics::ecc_uncorrected_aggregate] = number(h.ecc_uncorrected_aggregate);
  m[metrics::retired_pages_dbe] = number(h.retired_pages_dbe);
  m[metrics::retired_pages_sbe] = number(h.retired_pages_sbe);
  m[metrics::retired_pages_pending] = flag(h.retired_pages_pending);
  m[metrics::remapped_rows_correctable] = number(h.remapped_rows_correctable);
  m[metrics::remapped_rows_uncorrectable] = number(h.remapped_rows_uncorrectable);
  m[metrics::remap_pending] = flag(h.remap_pending);
  m[metrics::remap_failed] = flag(h.remap_failed);
  m[metrics::temp_C] = number(h.temp_C);
  std::optional<bool> thermal, power;
  if (h.clocks_event_reasons) {
    const auto bits = *h.clocks_event_reasons;
    m[metrics::clocks_event_reasons] = Metric::of(static_cast<double>(bits));
    // HW slowdown (0x8) is not counted as heat: NVML sets it for a power brake, a
    // power-draw trip and even a P-state change too; the bitmask keeps it on record.
    thermal = (bits & (kClocksSwThermalSlowdown | kClocksHwThermalSlowdown)) != 0;
    power = (bits & kClocksHwPowerBrakeSlowdown) != 0;
  } else {
    m[metrics::clocks_event_reasons] = Metric::missing();
  }
  m[metrics::thermal_slowdown] = flag(thermal);
  m[metrics::power_slowdown] = flag(power);
  m[metrics::pstate] = integer(h.pstate);
  m[metrics::pcie_gen] = number(h.pcie_gen);
  m[metrics::pcie_gen_max] = number(h.pcie_gen_max);
  m[metrics::pcie_width] = number(h.pcie_width);
  m[metrics::pcie_width_max] = number(h.pcie_width_max);
  m[metrics::nvlink_links] = integer(h.nvlink_links_total);
  m[metrics::nvlink_links_up] = integer(h.nvlink_links_up);
  m[metrics::nvlink_speed_MBps_min] = number(h.nvlink_speed_min_MBps);
  if (!h.nvlinks_down.empty()) r.params["nvlinks_down"] = h.nvlinks_down;
  if (h.nvlink_slowest) r.params["nvlink_slowest"] = *h.nvlink_slowest;
  // Error counters since the driver loaded or they were reset (Prometheus rates them); by link.
  m[metrics::nvlink_recoveries] = count(h.nvlink_recoveries);
  m[metrics::nvlink_errors] = count(h.nvlink_errors);
  for (const auto& e : h.nvlink_link_errors)
    r.params["nvlink_link_errors"][std::to_string(e.link)] = {{"recoveries", e.recoveries}, {"errors", e.errors}};
  // The NVLink fabric: registered (completed without error) or not; the domain it joined.
  std::optional<bool> registered;
  if (h.fabric_state) {
    registered = *h.fabric_state == NVML_GPU_FABRIC_STATE_COMPLETED && h.fabric_error.empty();
    r.params["fabric_state"] = fabric_state_text(*h.fabric_state);
    if (!h.fabric_error.empty()) r.params["fabric_error"] = h.fabric_error;
    if (!h.fabric_cluster_uuid.empty()) r.params["fabric_cluster_uuid"] = h.fabric_cluster_uuid;
    if (h.fabric_clique) r.params["fabric_clique"] = *h.fabric_clique;
  }
  m[metrics::fabric_registered] = flag(registered);
  static_assert(static_cast<int>(FabricHealth::healthy) == NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY &&
                static_cast<int>(FabricHealth::unhealthy) == NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY &&
                static_cast<int>(FabricHealth::limited_capacity) == NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY);
  m[metrics::fabric_health] = h.fabric_health && *h.fabric_health != NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED
                                  ? integer(h.fabric_health)
                                  : Metric::missing();
  m[metrics::persistence_mode] = flag(h.persistence_mode);
  return r;
}

std::vector<ProbeResult> check_gpu_health(const std::string& host) {
  const Nvml nvml;
  return check_gpu_health(host, nvml);
}

std::vector<ProbeResult> check_gpu_health(const std::string& host, const Nvml& nvml) {
  const Scope scope{{host}, {}, {}};
  if (!nvml.ok()) return {skipped(kGpuHealthProbe, scope, nvml.why_not())};
  std::vector<ProbeResult> out;
  try {
    for (const auto& health : nvml.query_health()) out.push_back(gpu_health_result(host, health));
  } catch (const std::exception& e) {
    ProbeResult r;
    r.id = kGpuHealthProbe;
    r.status = ProbeStatus::error;
    r.scope = scope;
    r.error = e.what();
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace ibgpu
