#include "health/thresholds.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string_view>

#include "health/controls.h"
#include "health/nvlink_domains.h"

namespace ibgpu {

namespace {

// Which number of an ok result is judged, if any.
enum class Judged { none, pair_bandwidth, pair_latency, allreduce, gpu_copy_bw, gpu_mem_bw };

Judged judged_number(const ProbeResult& p) {
  const ProbeKind& kind = p.kind();                            // looked up once: a fleet has a million results
  const bool pair = kind.pair() && p.scope.hosts.size() == 2;  // is_pair_probe
  if (pair && kind.quantity == Quantity::bandwidth) return Judged::pair_bandwidth;
  if (pair && kind.quantity == Quantity::latency) return Judged::pair_latency;
  if (kind.all_reduce()) return Judged::allreduce;
  if (kind.id == kGpuCopyBwProbe) return Judged::gpu_copy_bw;
  if (kind.id == kGpuMemBwProbe) return Judged::gpu_mem_bw;
  return Judged::none;
}

// The params a measurement's fleet group is made of.
struct Shape {
  std::optional<std::uint64_t> size;  // params.size_B
  std::optional<std::int64_t> nranks;
  std::optional<std::string> direction;
  bool in_place = false, retest = false;
  // An all-reduce that ran within one NVLink domain (health/nvlink_domains.h): over NVLink, not
  // the rails, so compared with its like and held to the domain's floor.
  std::optional<NvlinkDomain> nvlink_domain;
};

Shape shape_of(const ProbeResult& p) {
  Shape s;
  if (!p.params.is_object()) return s;
  s.size = message_size(p);
  for (const auto& [key, value] : p.params.items()) {
    if (key == "nranks" && value.is_number_integer())
      s.nranks = value.get<std::int64_t>();
    else if (key == "in_place")
      s.in_place = value.is_boolean() && value.get<bool>();
    else if (key == "retest")
      s.retest = true;
    else if (key == "direction" && value.is_string())
      s.direction = value.get<std::string>();
  }
  return s;
}

// The fleet group of a result's number: probe id, size and shape, then the metric.
FigureKey figure_of(const ProbeResult& p, const Shape& s, bool allreduce, std::string_view metric) {
  std::string shape;
  if (allreduce) {
    shape += s.in_place ? "/in_place" : "/out_of_place";
    shape.append(1, '/').append(std::to_string(p.scope.hosts.size())).append("hosts");
    if (s.nranks) shape.append(1, '/').append(std::to_string(*s.nranks)).append("ranks");
    if (s.nvlink_domain) shape += "/nvlink_domain";
  }
  if (s.direction) shape.append(1, '/').append(*s.direction);
  return FigureKey(p.id, s.size, shape, metric);
}

bool is_bandwidth(Judged j) { return j == Judged::pair_bandwidth || j == Judged::allreduce; }

const Limit kNoLimit{};

}  // namespace

Entity measured_entity(const ProbeResult& p) {
  const auto& hosts = p.scope.hosts;
  if (hosts.size() == 1) {
    const ProbeSubject subject = p.kind().subject;
    if (p.scope.devices.size() == 1 && (subject == ProbeSubject::gpu || subject == ProbeSubject::group))
      return Entity::gpu(hosts[0], gpu_name(p.scope.devices[0]));
    return Entity::node(hosts[0]);
  }
  if (hosts.empty()) return Entity::node("?");
  return Entity::hosts_group(hosts);
}

std::set<std::string> hosts_without_rdma(const std::vector<HostInventory>& hosts) {
  std::set<std::string> out;
  for (const auto& h : hosts) {
    const bool active = std::any_of(h.hcas.begin(), h.hcas.end(), [](const Hca& hca) {
      return std::any_of(hca.ports.begin(), hca.ports.end(), [](const IbPort& port) { return port.active(); });
    });
    if (!active) out.insert(h.name);
  }
  return out;
}

std::vector<Measurement> extract_measurements(const std::vector<ProbeResult>& probes, const Profile& profile,
                                              const std::set<std::string>* hosts_without_rdma) {
  // The largest size each bandwidth and all-reduce probe id ran at:
  // bandwidth is judged from the profile's size up, or at the largest size
  // when a run stayed below it.
  struct Judging {
    const ProbeResult* probe;
    Judged judged;
    Shape shape;
  };
  std::vector<Judging> judging;  // each judged result with its params, decoded once
  std::map<std::string_view, std::uint64_t> largest;
  for (const auto& p : probes) {
    // A control's figures (health/controls.h) are of a smaller stack than the run's: not judged.
    if (p.status != ProbeStatus::ok || (p.kind().all_reduce() && p.params.contains("control_of"))) continue;
    const Judged judged = judged_number(p);
    if (judged == Judged::none) continue;
    judging.push_back({&p, judged, shape_of(p)});
    if (const auto size = judging.back().shape.size; size && is_bandwidth(judged))
      largest[p.id] = std::max(largest[p.id], *size);
  }
  // Which hosts sit wholly in one NVLink domain: asked only where an NCCL all-reduce crossed hosts.
  const bool across_hosts_nccl = std::any_of(judging.begin(), judging.end(), [](const Judging& j) {
    return j.judged == Judged::allreduce && j.probe->scope.hosts.size() > 1 &&
           j.probe->kind().transport == Transport::nccl;
  });
  if (across_hosts_nccl) {
    const auto in_domain = hosts_wholly_in_a_domain(probes);
    for (Judging& j : judging)
      if (j.judged == Judged::allreduce) j.shape.nvlink_domain = allreduce_nvlink_domain(*j.probe, in_domain);
  }
  auto large_enough = [&](const ProbeResult& p, const Shape& s, std::uint64_t min_size) {
    return !s.size || *s.size >= std::min(min_size, largest[p.id]);  // no sizes: as it is
  };

  std::vector<Measurement> out;
  out.reserve(2 * judging.size());  // a sampled latency gives two, the rest one: a fleet's are a million
  for (const Judging& j : judging) {
    // Plain names, not structured bindings: the lambda below captures them (clang 14 cannot).
    const ProbeResult& p = *j.probe;
    const Judged judged = j.judged;
    const Shape& s = j.shape;
    // Set where the profile's limit exists but does not hold this measurement.
    std::string not_applied;
    auto add = [&](std::optional<double> value, const char* metric, LimitSense sense, const Limit& limit,
                   ReasonCode low, std::optional<ReasonCode> outlier) {
      if (!value) return;
      out.push_back(Measurement{&p, figure_of(p, s, judged == Judged::allreduce, metric), *value, metric, &limit, low,
                                outlier, sense, s.retest, not_applied});
    };
    // MPI between two hosts on the RDMA fabric is held to the profile's network limits; MPI from
    // a host without an active RDMA port (host TCP) is compared with the fleet alone. MPI between
    // ranks of one host (shared memory) measures the host's memory and scheduling, not a network:
    // recorded, judged by neither.
    const bool pair = judged == Judged::pair_bandwidth || judged == Judged::pair_latency;
    const bool one_host = pair && p.kind().transport != Transport::verbs && p.scope.hosts[0] == p.scope.hosts[1];
    if (one_host) not_applied = "MPI between ranks of one host measures its memory and scheduling, not a network";
    // A pair measured where ibgpu knows the figure is not the link's (params.not_judged, e.g. after
    // the transport broke on a lost peer: app/network.h): recorded, held to nothing, as one host's.
    const auto marked = p.params.find("not_judged");
    const bool unjudged = one_host || (pair && marked != p.params.end() && marked->is_string());
    if (unjudged && !one_host) not_applied = marked->get<std::string>();
    auto held = [&](const Limit& limit) -> const Limit& { return unjudged ? kNoLimit : limit; };
    auto mpi_limit = [&](const Limit& limit) -> const Limit& {
      const auto& hosts = p.scope.hosts;
      const bool host_tcp = one_host || (hosts_without_rdma &&
                                         (hosts_without_rdma->count(hosts[0]) || hosts_without_rdma->count(hosts[1])));
      if (!host_tcp || limit.empty()) return limit;
      if (!unjudged)
        not_applied = "the profile's limit is for MPI over RDMA, and this pair has an end without an active RDMA port";
      return kNoLimit;
    };
    auto fleet_code = [&](ReasonCode code) { return unjudged ? std::nullopt : std::optional(code); };
    switch (judged) {
      case Judged::none:
        break;
      case Judged::pair_bandwidth: {
        if (!large_enough(p, s, profile.network.bw_min_size_B)) break;
        const bool verbs = p.kind().transport == Transport::verbs;
        add(typical(p, metrics::bw_avg_GBps), metrics::bw_avg_GBps, LimitSense::floor,
            held(verbs ? profile.network.verbs_bw_GBps : mpi_limit(profile.network.mpi_bw_GBps)),
            verbs ? ReasonCode::IB_LINK_BW_LOW : ReasonCode::NET_BW_LOW,
            fleet_code(verbs ? ReasonCode::IB_LINK_BW_OUTLIER : ReasonCode::NET_BW_OUTLIER));
        break;
      }
      case Judged::pair_latency: {
        // A sampled latency is judged at its median and its tail; the tail against the profile's
        // ceiling only (no outlier code: no fleet rule), as a run's tails are its scheduling.
        const Metric* lat = find_metric(p, metrics::lat_us);
        if (!lat) break;
        const bool verbs = p.kind().transport == Transport::verbs;
        add(lat->summary ? std::optional<double>(lat->summary->p50) : lat->value, metrics::lat_us_p50,
            LimitSense::ceiling, held(verbs ? profile.network.lat_p50_us : mpi_limit(profile.network.lat_p50_us)),
            ReasonCode::LAT_HIGH, fleet_code(ReasonCode::LAT_OUTLIER));
        if (lat->summary)
          add(lat->summary->p99, metrics::lat_us_p99, LimitSense::ceiling,
              held(verbs ? profile.network.lat_p99_us : mpi_limit(profile.network.lat_p99_us)), ReasonCode::LAT_HIGH,
              std::nullopt);
        break;
      }
      case Judged::allreduce: {
        if (!large_enough(p, s, profile.allreduce.min_size_B)) break;
        // A floor holds only the backend and sizes it is written for; the rest is compared with
        // the fleet alone.
        // One node: its own NVLink. Across nodes of one NVLink domain: NVLink, the domain's floor
        // (without one, not the rails' floor either). Across nodes otherwise: the rails.
        const AllReduceLimits& a = profile.allreduce;
        const Limit& floor = p.scope.hosts.size() == 1 ? a.node_busbw_GBps
                             : s.nvlink_domain         ? a.domain_busbw_GBps
                                                       : a.rail_busbw_GBps;
        const bool applies = p.kind().transport == a.backend && (!s.size || *s.size >= a.min_size_B);
        if (!applies && !floor.empty())
          not_applied = "the profile's floor is for " + std::string(to_string(a.backend)) + " at " +
                        std::to_string(a.min_size_B) + " B and above";
        if (s.nvlink_domain && floor.empty() && !a.rail_busbw_GBps.empty())
          not_applied = "ran within NVLink domain " + s.nvlink_domain->text() +
                        ", over NVLink, not the rails: [allreduce.rail_busbw_GBps] does not judge it, and the "
                        "profile sets no [allreduce.domain_busbw_GBps]";
        add(typical(p, metrics::busbw_GBps), metrics::busbw_GBps, LimitSense::floor, applies ? floor : kNoLimit,
            ReasonCode::ALLREDUCE_BUSBW_LOW, ReasonCode::ALLREDUCE_BUSBW_OUTLIER);
        break;
      }
      case Judged::gpu_copy_bw: {
        // The slower direction.
        const auto h2d = typical(p, metrics::h2d_GBps), d2h = typical(p, metrics::d2h_GBps);
        add(h2d && d2h ? std::optional<double>(std::min(*h2d, *d2h)) : (h2d ? h2d : d2h), "copy_min_GBps",
            LimitSense::floor, profile.gpu.copy_bw_GBps, ReasonCode::GPU_COPY_BW_LOW, ReasonCode::GPU_COPY_BW_OUTLIER);
        break;
      }
      case Judged::gpu_mem_bw:
        add(typical(p, metrics::mem_bw_GBps), metrics::mem_bw_GBps, LimitSense::floor, profile.gpu.mem_bw_GBps,
            ReasonCode::GPU_MEM_BW_LOW, ReasonCode::GPU_MEM_BW_OUTLIER);
        break;
    }
  }
  return out;
}

bool absence_expected(const ProbeResult& p, const Profile& profile) {
  if (p.status != ProbeStatus::skipped || !p.scope.devices.empty()) return false;
  const ProbeKind& kind = p.kind();
  const bool of_gpus = kind.id == kInventoryGpuProbe || kind.subject == ProbeSubject::gpu;
  const bool of_ports = kind.id == kInventoryRdmaProbe || kind.subject == ProbeSubject::hca_port;
  // A driver without IMEX channels, on a node whose profile does not ask for IMEX.
  if (kind.id == kImexProbe) return !profile.gpu.imex_channel && !profile.gpu.imex_service;
  return (of_gpus && profile.node.expect_gpus == 0) || (of_ports && profile.node.expect_active_ports == 0);
}

bool out_of_scope(const ProbeResult& p, RunScope scope, int ranks) {
  if (scope != RunScope::node || p.status != ProbeStatus::skipped) return false;
  return p.kind().stage == ProbeStage::network || (p.kind().all_reduce() && ranks == 1);
}

void cite(Reason& reason, const ProbeResult& p) {
  reason.probe = p.id;
  reason.size_B = message_size(p);
  const auto& devices = p.scope.devices;
  if (is_pair_probe(p) && devices.size() == 2) {
    reason.port = devices[0];
    reason.peer_port = devices[1];
  } else if (p.kind().subject == ProbeSubject::hca_port && devices.size() == 1) {
    reason.port = devices[0];
  }
}

namespace {

// What a result's status says, before the reason cites the result.
Finding outcome_of(const ProbeResult& p) {
  auto reason = [&](ReasonCode code, const std::string& text) {
    return Reason{code, p.id + ": " + text, p.id, std::nullopt, std::nullopt};
  };
  switch (p.status) {
    case ProbeStatus::ok:
      return {};
    case ProbeStatus::skipped:
      if (p.skipped_by == SkippedBy::ibgpu) {  // ibgpu's own gap: recorded, never the node's
        Reason r = reason(ReasonCode::CHECK_NOT_RUN, p.reason.value_or("not run"));
        r.evidence = Evidence::not_judged;
        return {HealthState::healthy, std::move(r)};
      }
      return {HealthState::unknown, reason(ReasonCode::CHECK_SKIPPED, p.reason.value_or("skipped"))};
    case ProbeStatus::timeout:
    case ProbeStatus::error:
      if (const auto by = not_reproduced(p))  // the instrument's, or the path's: never the devices' (health/controls.h)
        return {HealthState::unknown, reason(ReasonCode::PROBE_ERROR_NOT_REPRODUCED,
                                             p.error.value_or("error") + " (not reproduced: " + *by + ")")};
      if (p.status == ProbeStatus::timeout)
        return {HealthState::failed, reason(ReasonCode::PROBE_TIMEOUT, p.error.value_or("timeout"))};
      return {HealthState::failed, reason(ReasonCode::PROBE_ERROR, p.error.value_or("error"))};
    case ProbeStatus::failed: {
      const auto wrong = typical(p, metrics::wrong_elements);
      if (p.kind().all_reduce() && wrong.value_or(0) > 0)
        return {HealthState::failed,
                Reason{ReasonCode::ALLREDUCE_WRONG_DATA, p.id + ": " + p.error.value_or("wrong data"),
                       metrics::wrong_elements, wrong, 0.0}};
      if (p.kind().id == kGpuComputeProbe)
        return {HealthState::failed, reason(ReasonCode::GPU_COMPUTE_WRONG, p.error.value_or("failed"))};
      // NVML failed a GPU's health record only for NVML_ERROR_GPU_IS_LOST (probes/gpu/gpu_health.h).
      if (p.kind().id == kGpuHealthProbe)
        return {HealthState::failed, reason(ReasonCode::GPU_LOST, p.error.value_or("GPU is lost"))};
      return {HealthState::failed, reason(ReasonCode::PROBE_FAILED, p.error.value_or("failed"))};
    }
  }
  return {HealthState::unknown, std::nullopt};
}

}  // namespace

Finding probe_outcome(const ProbeResult& p) { return cited(outcome_of(p), p); }

Finding judge_absolute(const Measurement& m) {
  const bool floor = m.sense == LimitSense::floor;
  auto beyond = [&](double limit) { return floor ? m.value < limit : m.value > limit; };
  auto finding = [&](HealthState state, double limit, const char* level) {
    const std::string message = m.probe->id + " " + std::string(m.metric) + " " + format_value(m.value) +
                                (floor ? " below the " : " above the ") + level + " " + format_value(limit);
    return cited(Finding{state, Reason{m.low_code, message, m.metric, m.value, limit}}, *m.probe);
  };
  if (!m.limit) return {};
  const Limit& limit = *m.limit;
  if (limit.failed && beyond(*limit.failed)) return finding(HealthState::failed, *limit.failed, "failed limit");
  if (limit.degraded && beyond(*limit.degraded))
    return finding(HealthState::degraded, *limit.degraded, "degraded level");
  return {};
}

}  // namespace ibgpu
