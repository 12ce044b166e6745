#include "health/thresholds.h"

#include <algorithm>
#include <cstdio>
#include <string_view>
#include <unordered_map>

namespace ibgpu {

namespace {

bool starts_with(std::string_view s, std::string_view head) { return s.starts_with(head); }
bool ends_with(std::string_view s, std::string_view tail) { return s.ends_with(tail); }

// A kind's parts as the facts hold them: its text is built once, at first sight.
struct KindKey {
  std::uint32_t probe, direction, hosts;
  std::uint64_t size;
  std::int64_t nranks;
  bool has_size, has_nranks, in_place;
  const char* metric;
  bool operator==(const KindKey&) const = default;
};
struct KindKeyHash {
  std::size_t operator()(const KindKey& k) const {
    std::size_t h = std::hash<std::uint64_t>{}(k.size) ^ (std::size_t{k.probe} << 1) ^ (std::size_t{k.direction} << 17) ^
                    (std::size_t{k.hosts} << 33) ^ std::hash<const void*>{}(k.metric);
    return h ^ (static_cast<std::size_t>(k.nranks) << 7) ^ (k.has_size ? 0x9e37 : 0) ^ (k.in_place ? 0x7f4a0000 : 0);
  }
};

// The fleet group of a result's number: probe id, size and shape, then the metric.
std::string kind_text(const ResultFacts& facts, const KindKey& k, bool allreduce) {
  std::string kind(facts.probe_ids().name(k.probe));
  if (k.has_size) kind.append(1, '@').append(std::to_string(k.size));
  if (allreduce) {
    kind.append(k.in_place ? "/in_place" : "/out_of_place");
    kind.append(1, '/').append(std::to_string(k.hosts)).append("hosts");
    if (k.has_nranks) kind.append(1, '/').append(std::to_string(k.nranks)).append("ranks");
  }
  if (k.direction != ResultFact::kNone) kind.append(1, '/').append(facts.directions().name(k.direction));
  return kind.append(1, ':').append(k.metric);
}

}  // namespace

std::string format_value(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
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

void for_each_measurement(const ResultFacts& facts, const std::vector<ProbeResult>& probes, const Profile& profile,
                          MeasurementKinds& kinds, const std::function<void(const Measurement&)>& visit) {
  // The largest size each bandwidth and all-reduce probe id ran at:
  // bandwidth is judged from the profile's size up, or at the largest size
  // when a run stayed below it.
  std::vector<std::uint64_t> largest(facts.probe_ids().size(), 0);
  for (const ResultFact& f : facts)
    if (f.has_size && (f.judged == Judged::pair_bandwidth || f.judged == Judged::allreduce))
      largest[f.probe] = std::max(largest[f.probe], f.size);
  auto large_enough = [&](const ResultFact& f, std::size_t min_size) {
    return !f.has_size || f.size >= std::min<std::uint64_t>(min_size, largest[f.probe]);  // no sizes: as it is
  };
  std::unordered_map<KindKey, std::pair<std::string_view, std::uint32_t>, KindKeyHash> known;
  auto add = [&](const ResultFact& f, int which, const char* metric, LimitSense sense, const Limit& limit,
                 const char* low, const char* outlier) {
    if (!f.has_value[which]) return;
    const bool allreduce = f.judged == Judged::allreduce;
    const KindKey key{f.probe,     f.direction,  allreduce ? f.host_count : 0,    f.has_size ? f.size : 0,
                      allreduce && f.has_nranks ? f.nranks : 0,           f.has_size,
                      allreduce && f.has_nranks, allreduce && f.in_place, metric};
    auto it = known.find(key);
    if (it == known.end()) it = known.emplace(key, kinds.intern(kind_text(facts, key, allreduce))).first;
    const auto [held, index] = it->second;
    const std::size_t i = static_cast<std::size_t>(&f - &facts[0]);
    visit(Measurement{&probes[i], held, f.value[which], metric, &limit, low, outlier, index, sense, f.retest, &f});
  };
  for (const ResultFact& f : facts) {
    switch (f.judged) {
      case Judged::none: break;
      case Judged::pair_bandwidth: {
        if (!large_enough(f, profile.network.bw_min_size_B)) break;
        const bool verbs = facts.traits(f).verbs;
        add(f, 0, "bw_avg_GBps", LimitSense::floor, verbs ? profile.network.verbs_bw_GBps : profile.network.mpi_bw_GBps,
            verbs ? "IB_LINK_BW_LOW" : "NET_BW_LOW", verbs ? "IB_LINK_BW_OUTLIER" : "NET_BW_OUTLIER");
        break;
      }
      case Judged::pair_latency:
        add(f, 0, "lat_us.p50", LimitSense::ceiling, profile.network.lat_p50_us, "LAT_HIGH", "LAT_OUTLIER");
        add(f, 1, "lat_us.p99", LimitSense::ceiling, profile.network.lat_p99_us, "LAT_HIGH", "LAT_OUTLIER");
        break;
      case Judged::allreduce:
        if (!large_enough(f, profile.allreduce.min_size_B)) break;
        add(f, 0, "busbw_GBps", LimitSense::floor,
            f.host_count == 1 ? profile.allreduce.node_busbw_GBps : profile.allreduce.rail_busbw_GBps,
            "ALLREDUCE_BUSBW_LOW", "ALLREDUCE_BUSBW_OUTLIER");
        break;
      // Copy bandwidth is the slower direction; memory bandwidth is the copy kernel's.
      case Judged::gpu_copy_bw:
        add(f, 0, "copy_min_GBps", LimitSense::floor, profile.gpu.copy_bw_GBps, "GPU_COPY_BW_LOW",
            "GPU_COPY_BW_OUTLIER");
        break;
      case Judged::gpu_mem_bw:
        add(f, 0, "mem_bw_GBps", LimitSense::floor, profile.gpu.mem_bw_GBps, "GPU_MEM_BW_LOW", "GPU_MEM_BW_OUTLIER");
        break;
    }
  }
}

Measurements extract_measurements(const std::vector<ProbeResult>& probes, const Profile& profile) {
  Measurements out;
  out.facts_ = std::make_unique<ResultFacts>(probes);
  out.list_.reserve(probes.size() * 3 / 2);
  for_each_measurement(*out.facts_, probes, profile, out.kinds_, [&](const Measurement& m) { out.list_.push_back(m); });
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
