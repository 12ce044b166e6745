#include "health/profile.h"

namespace ibgpu {

Profile generic_profile() { return Profile{}; }

Profile every_size_profile() {
  Profile p = generic_profile();
  p.network.bw_min_size_B = 0;
  p.allreduce.min_size_B = 0;
  return p;
}

namespace {

template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json limit(const Limit& l, LimitSense sense) {
  return {{"failed", opt(l.failed)},
          {"degraded", opt(l.degraded)},
          {"sense", sense == LimitSense::floor ? "floor" : "ceiling"}};
}

}  // namespace

nlohmann::json to_json(const Profile& p) {
  constexpr auto floor = LimitSense::floor;
  constexpr auto ceiling = LimitSense::ceiling;
  return {{"name", p.name},
          {"description", p.description},
          {"source", p.source},
          {"node",
           {{"expect_gpus", opt(p.node.expect_gpus)},
            {"expect_active_ports", opt(p.node.expect_active_ports)},
            {"port_rate_gbps", opt(p.node.port_rate_gbps)},
            {"port_width", opt(p.node.port_width)},
            {"exclude_rail_with_gpu", p.node.exclude_rail_with_gpu}}},
          {"counters",
           {{"symbol_error_per_hour_degraded", p.counters.symbol_error_per_hour_degraded},
            {"link_error_recovery_per_hour_degraded", p.counters.link_error_recovery_per_hour_degraded},
            {"port_rcv_errors_per_hour_degraded", p.counters.port_rcv_errors_per_hour_degraded},
            {"local_link_integrity_errors_per_hour_degraded", p.counters.local_link_integrity_errors_per_hour_degraded},
            {"excessive_buffer_overrun_errors_per_hour_degraded",
             p.counters.excessive_buffer_overrun_errors_per_hour_degraded},
            {"link_down_events_degraded", p.counters.link_down_events_degraded}}},
          {"network",
           {{"bw_min_size_B", p.network.bw_min_size_B},
            {"verbs_bw_GBps", limit(p.network.verbs_bw_GBps, floor)},
            {"mpi_bw_GBps", limit(p.network.mpi_bw_GBps, floor)},
            {"lat_p50_us", limit(p.network.lat_p50_us, ceiling)},
            {"lat_p99_us", limit(p.network.lat_p99_us, ceiling)}}},
          {"allreduce",
           {{"backend", to_string(p.allreduce.backend)},
            {"min_size_B", p.allreduce.min_size_B},
            {"network", p.allreduce.network.empty() ? nlohmann::json() : nlohmann::json(p.allreduce.network)},
            {"node_busbw_GBps", limit(p.allreduce.node_busbw_GBps, floor)},
            {"rail_busbw_GBps", limit(p.allreduce.rail_busbw_GBps, floor)},
            {"domain_busbw_GBps", limit(p.allreduce.domain_busbw_GBps, floor)}}},
          {"gpu",
           {{"copy_bw_GBps", limit(p.gpu.copy_bw_GBps, floor)},
            {"mem_bw_GBps", limit(p.gpu.mem_bw_GBps, floor)},
            {"temp_degraded_C", opt(p.gpu.temp_degraded_C)},
            {"temp_failed_C", opt(p.gpu.temp_failed_C)},
            {"require_persistence_mode", p.gpu.require_persistence_mode},
            {"nvlink_links", opt(p.gpu.nvlink_links)},
            {"nvlink_speed_MBps", opt(p.gpu.nvlink_speed_MBps)},
            {"nvlink_fabric", p.gpu.nvlink_fabric},
            {"imex_channel", p.gpu.imex_channel},
            {"imex_service", p.gpu.imex_service},
            {"nvlink_recoveries_degraded", opt(p.gpu.nvlink_recoveries_degraded)},
            {"nvlink_errors_degraded", opt(p.gpu.nvlink_errors_degraded)}}},
          {"fleet",
           {{"enabled", p.fleet.enabled},
            {"bw_fraction", p.fleet.bw_fraction},
            {"bw_fraction_widest", p.fleet.bw_fraction_widest},
            {"bw_fraction_failed", p.fleet.bw_fraction_failed},
            {"lat_multiple", p.fleet.lat_multiple},
            {"min_fleet_size", p.fleet.min_fleet_size}}},
          {"confidence", {{"drain_weak", p.confidence.drain_weak}, {"default_noise", p.confidence.default_noise}}},
          {"burn_in",
           {{"flaky_state", to_string(p.burn_in.flaky_state)},
            {"flaky_min_rounds", p.burn_in.flaky_min_rounds},
            {"seen_once_state", to_string(p.burn_in.seen_once_state)},
            {"drop_fraction", p.burn_in.drop_fraction},
            {"drift_state", to_string(p.burn_in.drift_state)},
            {"drift_fraction", p.burn_in.drift_fraction},
            {"drift_min_rounds", p.burn_in.drift_min_rounds}}},
          {"history",
           {{"window", p.history.window},
            {"flapping_bad", p.history.flapping_bad},
            {"transient_clean", p.history.transient_clean},
            {"lemon_days", p.history.lemon_days}}}};
}

}  // namespace ibgpu
