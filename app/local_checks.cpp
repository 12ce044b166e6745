#include "app/local_checks.h"

#include <algorithm>

#include "app/live_events.h"
#include "core/deadline.h"
#include "core/errors.h"
#include "core/probe_kind.h"
#include "core/text.h"
#include "probes/gpu/cuda_probes.h"
#include "probes/gpu/gpu_health.h"
#include "probes/imex.h"
#include "probes/kernel_log.h"

namespace ibgpu {

bool LocalSkips::skips(std::string_view probe_id) const {
  for (const auto& name : names)
    if (probe_id == name || (probe_id.starts_with(name) && probe_id.substr(name.size()).starts_with('.'))) return true;
  return false;
}

std::string LocalSkips::text() const {
  std::vector<std::string> parts;
  for (const auto& name : names) {
    std::vector<std::string> ids;
    for (const ProbeKind& kind : probe_catalogue())
      if (kind.stage == ProbeStage::local && LocalSkips{{name}}.skips(kind.id) && kind.id != name)
        ids.emplace_back(kind.id);
    parts.push_back(ids.empty() ? name : name + " (" + join(ids, ", ") + ")");
  }
  return join(parts, ", ");
}

LocalSkips parse_local_skips(const std::vector<std::string>& names) {
  std::vector<std::string> local;
  for (const ProbeKind& kind : probe_catalogue())
    if (kind.stage == ProbeStage::local) local.emplace_back(kind.id);
  for (const auto& name : names)
    if (std::none_of(local.begin(), local.end(), [&](const std::string& id) { return LocalSkips{{name}}.skips(id); }))
      throw UsageError("--skip: '" + name + "' is no local check; they are " + join(local, ", ") +
                       " (or a family of them, e.g. gpu.cuda)");
  return LocalSkips{names};
}

std::vector<ProbeResult> run_local_checks(const HostInventory& host, const LocalSkips& skip, LiveChannel& live,
                                          const std::string& imex_root) {
  std::vector<ProbeResult> out;
  auto kept = [&](std::vector<ProbeResult> results) {
    for (auto& p : results)
      if (!skip.skips(p.id)) out.push_back(std::move(p));
  };
  if (!skip.skips(kGpuHealthProbe)) kept(check_gpu_health(host.name));
  // The CUDA probes run as one set: only when one of them is wanted.
  if (!skip.skips(kGpuCopyBwProbe) || !skip.skips(kGpuMemBwProbe) || !skip.skips(kGpuComputeProbe))
    kept(run_cuda_probes(host.name, host.gpus));
  if (!skip.skips(kKernelLogProbe)) kept(check_kernel_log(host.name));
  if (!skip.skips(kImexProbe)) kept(check_imex(host.name, imex_root));
  live.local_done(host.name, out);
  return out;
}

PortCounterWatch::PortCounterWatch(const Sysfs& sysfs, const HostInventory& host)
    : sysfs_(sysfs), host_(host.name), before_(snapshot_counters(host.hcas, monotonic_s())) {}

std::vector<ProbeResult> PortCounterWatch::finish() const {
  if (before_.ports.empty()) return {};
  return counter_deltas(host_, before_, snapshot_counters(sysfs_, monotonic_s()));
}

}  // namespace ibgpu
