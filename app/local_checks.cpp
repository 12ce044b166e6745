#include "app/local_checks.h"

#include <chrono>

#include "core/deadline.h"
#include "probes/gpu/cuda_probes.h"
#include "probes/gpu/gpu_health.h"
#include "probes/kernel_log.h"

namespace ibgpu {

namespace {

double monotonic_s() { return Seconds(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void append(std::vector<ProbeResult>& to, std::vector<ProbeResult> from) {
  for (auto& p : from) to.push_back(std::move(p));
}

}  // namespace

std::vector<ProbeResult> run_local_checks(const HostInventory& host) {
  std::vector<ProbeResult> out;
  append(out, check_gpu_health(host.name));
  append(out, run_cuda_probes(host.name, host.gpus));
  append(out, check_kernel_log(host.name));
  return out;
}

PortCounterWatch::PortCounterWatch(const Sysfs& sysfs, const HostInventory& host)
    : sysfs_(sysfs), host_(host.name), before_(snapshot_counters(host.hcas, monotonic_s())) {}

std::vector<ProbeResult> PortCounterWatch::finish() const {
  if (before_.ports.empty()) return {};
  return counter_deltas(host_, before_, snapshot_counters(sysfs_, monotonic_s()));
}

}  // namespace ibgpu
