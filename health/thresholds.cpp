#include "health/thresholds.h"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <unordered_map>

namespace ibgpu {

namespace {

// Views: probe ids are tested against literals for every one of a fleet's results.
bool ends_with(std::string_view s, std::string_view tail) { return s.ends_with(tail); }
bool starts_with(std::string_view s, std::string_view head) { return s.starts_with(head); }

bool is_bw_probe(const ProbeResult& p) { return starts_with(p.id, "net.") && (ends_with(p.id, "_bw") || ends_with(p.id, ".bw")); }
bool is_lat_probe(const ProbeResult& p) { return starts_with(p.id, "net.") && (ends_with(p.id, "_lat") || ends_with(p.id, ".lat")); }

std::optional<double> metric_value(const ProbeResult& p, std::string_view name) {
  auto it = p.metrics.find(name);
  return it == p.metrics.end() ? std::nullopt : it->second.typical();
}

// The fleet group of a probe's numbers: probe id, size and shape.
void append_kind(std::string& kind, const ProbeResult& p, std::optional<std::size_t> size) {
  kind.append(p.id);
  if (size) kind.append(1, '@').append(std::to_string(*size));
  if (is_allreduce_probe(p)) {
    kind.append(p.params.value("in_place", false) ? "/in_place" : "/out_of_place");
    kind.append(1, '/').append(std::to_string(p.scope.hosts.size())).append("hosts");
    if (auto n = p.params.find("nranks"); n != p.params.end() && n->is_number_integer())
      kind.append(1, '/').append(std::to_string(n->get<long long>())).append("ranks");
  }
  if (auto d = p.params.find("direction"); d != p.params.end() && d->is_string())
    kind.append(1, '/').append(d->get_ref<const std::string&>());
}

// The largest size each bandwidth and all-reduce probe id ran at: bandwidth
// is judged from the profile's size up, or at the largest size when a run
// stayed below it.
std::unordered_map<std::string, std::size_t> largest_sizes(const std::vector<ProbeResult>& probes) {
  std::unordered_map<std::string, std::size_t> out;
  for (std::size_t i = 0; i < probes.size(); ++i) {
    prefetch_heads(probes, i + kPrefetchAhead);
    const ProbeResult& p = probes[i];
    if (p.status == ProbeStatus::ok && ((is_bw_probe(p) && is_pair_probe(p)) || is_allreduce_probe(p)))
      if (auto s = size_of(p)) {
        std::size_t& l = out[p.id];
        l = std::max(l, *s);
      }
  }
  return out;
}

}  // namespace

std::string format_value(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

std::optional<std::size_t> size_of(const ProbeResult& p) {
  auto it = p.params.find("size_B");
  if (it == p.params.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<std::size_t>();
}

bool is_pair_probe(const ProbeResult& p) { return starts_with(p.id, "net.") && p.scope.hosts.size() == 2; }

bool is_allreduce_probe(const ProbeResult& p) {
  return starts_with(p.id, "collective.") && ends_with(p.id, ".all_reduce");
}

Entity measured_entity(const ProbeResult& p) {
  const auto& hosts = p.scope.hosts;
  if (hosts.size() == 1) {
    if (p.scope.devices.size() == 1 && (starts_with(p.id, "gpu.") || is_allreduce_probe(p)))
      return {"gpu", hosts[0] + "/" + gpu_name(p.scope.devices[0])};
    return {"node", hosts[0]};
  }
  if (hosts.size() == 2) return {"link", hosts[0] + "<->" + hosts[1]};
  if (hosts.empty()) return {"node", "?"};
  return {"link", hosts.front() + "<->..<->" + hosts.back() + " (" + std::to_string(hosts.size()) + " hosts)"};
}

std::string gpu_name(const std::string& device) {
  for (const char* prefix : {"cuda:", "GPU", "gpu"})
    if (starts_with(device, prefix) && device.size() > std::char_traits<char>::length(prefix))
      return "gpu" + device.substr(std::char_traits<char>::length(prefix));
  return device;
}

std::pair<std::string_view, std::uint32_t> MeasurementKinds::intern(std::string_view kind) {
  auto it = index_.find(kind);
  if (it == index_.end()) {
    it = index_.emplace(std::string(kind), static_cast<std::uint32_t>(views_.size())).first;
    views_.push_back(it->first);
  }
  return {it->first, it->second};
}

void for_each_measurement(const std::vector<ProbeResult>& probes, const Profile& profile, MeasurementKinds& kinds,
                          const std::function<void(const Measurement&)>& visit) {
  const auto largest = largest_sizes(probes);
  std::optional<std::size_t> size;  // the current probe's
  auto large_enough = [&](const ProbeResult& p, std::size_t min_size) {
    if (!size) return true;  // a probe without sizes is judged as it is
    auto it = largest.find(p.id);
    return *size >= std::min(min_size, it == largest.end() ? *size : it->second);
  };
  // The probe's kind, built once however many of its numbers are judged
  // (latency: p50 and p99), in buffers reused from probe to probe.
  std::string kind, measured;
  bool retest = false;
  auto add = [&](const ProbeResult& p, const char* metric, std::optional<double> value, LimitSense sense,
                 const Limit& limit, const char* low, const char* outlier) {
    if (!value) return;
    if (kind.empty()) {
      append_kind(kind, p, size);
      retest = p.params.contains("retest");
    }
    measured.assign(kind).append(1, ':').append(metric);
    const auto [held, index] = kinds.intern(measured);
    visit(Measurement{&p, held, *value, metric, &limit, low, outlier, index, sense, retest});
  };
  for (std::size_t i = 0; i < probes.size(); ++i) {
    prefetch_heads(probes, i + kPrefetchAhead);
    const ProbeResult& p = probes[i];
    if (p.status != ProbeStatus::ok) continue;
    const bool pair = is_pair_probe(p), bw = pair && is_bw_probe(p), lat = pair && !bw && is_lat_probe(p);
    const bool gpu_bw = p.id == "gpu.cuda.copy_bw" || p.id == "gpu.cuda.mem_bw";
    if (!bw && !lat && !gpu_bw && !is_allreduce_probe(p)) continue;  // nothing of it is judged here
    kind.clear();
    size = size_of(p);
    if (bw) {
      if (!large_enough(p, profile.network.bw_min_size_B)) continue;
      const bool verbs = starts_with(p.id, "net.verbs.");
      add(p, "bw_avg_GBps", metric_value(p, "bw_avg_GBps"), LimitSense::floor,
          verbs ? profile.network.verbs_bw_GBps : profile.network.mpi_bw_GBps,
          verbs ? "IB_LINK_BW_LOW" : "NET_BW_LOW", verbs ? "IB_LINK_BW_OUTLIER" : "NET_BW_OUTLIER");
    } else if (lat) {
      auto it = p.metrics.find("lat_us");
      if (it == p.metrics.end()) continue;
      const Metric& m = it->second;
      add(p, "lat_us.p50", m.summary ? std::optional<double>(m.summary->p50) : m.value, LimitSense::ceiling,
          profile.network.lat_p50_us, "LAT_HIGH", "LAT_OUTLIER");
      if (m.summary)
        add(p, "lat_us.p99", m.summary->p99, LimitSense::ceiling, profile.network.lat_p99_us, "LAT_HIGH",
            "LAT_OUTLIER");
    } else if (is_allreduce_probe(p)) {
      if (!large_enough(p, profile.allreduce.min_size_B)) continue;
      const bool one_node = p.scope.hosts.size() == 1;
      add(p, "busbw_GBps", metric_value(p, "busbw_GBps"), LimitSense::floor,
          one_node ? profile.allreduce.node_busbw_GBps : profile.allreduce.rail_busbw_GBps, "ALLREDUCE_BUSBW_LOW",
          "ALLREDUCE_BUSBW_OUTLIER");
    } else if (gpu_bw) {
      // Copy bandwidth is the slower direction; memory bandwidth is the copy kernel's.
      const bool copy = p.id == "gpu.cuda.copy_bw";
      std::optional<double> v;
      if (copy) {
        const auto h2d = metric_value(p, "h2d_GBps"), d2h = metric_value(p, "d2h_GBps");
        v = h2d && d2h ? std::optional<double>(std::min(*h2d, *d2h)) : (h2d ? h2d : d2h);
      } else {
        v = metric_value(p, "mem_bw_GBps");
      }
      add(p, copy ? "copy_min_GBps" : "mem_bw_GBps", v, LimitSense::floor, copy ? profile.gpu.copy_bw_GBps : profile.gpu.mem_bw_GBps,
          copy ? "GPU_COPY_BW_LOW" : "GPU_MEM_BW_LOW", copy ? "GPU_COPY_BW_OUTLIER" : "GPU_MEM_BW_OUTLIER");
    }
  }
}

Measurements extract_measurements(const std::vector<ProbeResult>& probes, const Profile& profile) {
  Measurements out;
  out.list_.reserve(probes.size() * 3 / 2);
  for_each_measurement(probes, profile, out.kinds_, [&](const Measurement& m) { out.list_.push_back(m); });
  return out;
}

Finding judge_absolute(const Measurement& m) {
  const bool floor = m.sense == LimitSense::floor;
  auto beyond = [&](double limit) { return floor ? m.value < limit : m.value > limit; };
  auto finding = [&](HealthState state, double limit, const char* level) {
    const std::string message = m.probe->id + " " + std::string(m.metric) + " " + format_value(m.value) +
                                (floor ? " below the " : " above the ") + level + " " + format_value(limit);
    return Finding{state, Reason{m.low_code, message, m.metric, m.value, limit}};
  };
  if (!m.limit) return {};
  const Limit& limit = *m.limit;
  if (limit.failed && beyond(*limit.failed)) return finding(HealthState::failed, *limit.failed, "failed limit");
  if (limit.degraded && beyond(*limit.degraded)) return finding(HealthState::degraded, *limit.degraded, "degraded level");
  return {};
}

}  // namespace ibgpu
