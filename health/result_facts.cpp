#include "health/result_facts.h"

#include <algorithm>

#include "health/local_health.h"
#include "health/thresholds.h"
#include "probes/metric_names.h"
#include "probes/result_prefetch.h"

namespace ibgpu {

namespace {

ProbeTraits traits_of(const ProbeResult& p) {
  const std::string_view id = p.id;
  ProbeTraits t;
  t.network = id.starts_with("net.");
  t.bandwidth = t.network && (id.ends_with("_bw") || id.ends_with(".bw"));
  t.latency = t.network && (id.ends_with("_lat") || id.ends_with(".lat"));
  t.verbs = id.starts_with("net.verbs.");
  t.allreduce = is_allreduce_probe(p);
  t.gpu_copy_bw = id == "gpu.cuda.copy_bw";
  t.gpu_mem_bw = id == "gpu.cuda.mem_bw";
  t.local = is_local_probe(p);
  return t;
}

Judged judged_number(const ProbeTraits& t, std::size_t hosts) {
  const bool pair = t.network && hosts == 2;
  if (pair && t.bandwidth) return Judged::pair_bandwidth;
  if (pair && t.latency) return Judged::pair_latency;
  if (t.allreduce) return Judged::allreduce;
  if (t.gpu_copy_bw) return Judged::gpu_copy_bw;
  if (t.gpu_mem_bw) return Judged::gpu_mem_bw;
  return Judged::none;
}

void set_value(ResultFact& f, int i, std::optional<double> v) {
  f.has_value[i] = v.has_value();
  f.value[i] = v.value_or(0);
}

}  // namespace

ResultFacts::ResultFacts(const std::vector<ProbeResult>& probes) {
  facts_.resize(probes.size());
  // Hints: a pair's results come one after another, alternating probes.
  const ResultFact none;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    prefetch_heads(probes, i + kPrefetchAhead);
    const ProbeResult& p = probes[i];
    ResultFact& f = facts_[i];
    const ResultFact& before = i > 0 ? facts_[i - 1] : none;
    f.probe = probe_ids_.of(p.id, i > 1 ? facts_[i - 2].probe : ResultFact::kNone);
    if (f.probe == traits_.size()) traits_.push_back(traits_of(p));
    f.status = p.status;
    const auto& hosts = p.scope.hosts;
    f.host_count = static_cast<std::uint32_t>(hosts.size());
    for (std::size_t k = 0; k < std::min<std::size_t>(2, hosts.size()); ++k)
      f.host[k] = hosts_.of(hosts[k], before.host[k]);
    if (p.scope.devices.size() == 2)
      for (int k = 0; k < 2; ++k) f.device[k] = devices_.of(p.scope.devices[k], before.device[k]);
    if (p.scope.ranks.size() == 2)
      for (int k = 0; k < 2; ++k) f.rank[k] = p.scope.ranks[k];
    if (p.status == ProbeStatus::ok) {
      f.judged = judged_number(traits_[f.probe], hosts.size());
      if (f.judged != Judged::none) read_judged(f, p);
    }
  }
}

void ResultFacts::read_judged(ResultFact& f, const ProbeResult& p) {
  // The params in one walk: a result has a handful.
  if (p.params.is_object())
    for (const auto& [key, value] : p.params.get_ref<const nlohmann::json::object_t&>()) {
      if (key == "size_B" && value.is_number_unsigned()) {
        f.has_size = true;
        f.size = value.get<std::uint64_t>();
      } else if (key == "nranks" && value.is_number_integer()) {
        f.has_nranks = true;
        f.nranks = value.get<std::int64_t>();
      } else if (key == "in_place") {
        f.in_place = value.is_boolean() && value.get<bool>();
      } else if (key == "retest") {
        f.retest = true;
      } else if (key == "direction" && value.is_string()) {
        f.direction = directions_.of(value.get_ref<const std::string&>());
      }
    }
  switch (f.judged) {
    case Judged::none: break;
    case Judged::pair_bandwidth: set_value(f, 0, typical(p, "bw_avg_GBps")); break;
    case Judged::pair_latency:
      if (auto it = p.metrics.find("lat_us"); it != p.metrics.end()) {
        const Metric& m = it->second;
        set_value(f, 0, m.summary ? std::optional<double>(m.summary->p50) : m.value);
        if (m.summary) set_value(f, 1, m.summary->p99);
      }
      break;
    case Judged::allreduce: set_value(f, 0, typical(p, "busbw_GBps")); break;
    case Judged::gpu_copy_bw: {
      const auto h2d = typical(p, "h2d_GBps"), d2h = typical(p, "d2h_GBps");
      set_value(f, 0, h2d && d2h ? std::optional<double>(std::min(*h2d, *d2h)) : (h2d ? h2d : d2h));
      break;
    }
    case Judged::gpu_mem_bw: set_value(f, 0, typical(p, "mem_bw_GBps")); break;
  }
}

}  // namespace ibgpu
