#include "probes/collective/allreduce_results.h"

#include "probes/collective/bandwidth.h"

namespace ibgpu {

std::string allreduce_probe_id(const std::string& backend) { return "collective." + backend + ".all_reduce"; }

nlohmann::json allreduce_params(const AllReduceCase& c) {
  return {{"size_B", c.bytes}, {"count", c.count},   {"dtype", to_string(c.dtype)}, {"in_place", c.in_place},
          {"iters", c.iters},  {"warmup", c.warmup}, {"nranks", c.nranks}};
}

Scope rank_scope(const World& world, const std::string& device) {
  Scope scope;
  scope.hosts = {world.host()};
  scope.ranks = {world.self().rank};
  if (!device.empty()) scope.devices = {device};
  return scope;
}

Scope world_scope(const World& world) {
  Scope scope;
  scope.hosts = world.hosts();
  for (const auto& place : world.places) scope.ranks.push_back(place.rank);
  return scope;
}

ProbeResult allreduce_summary(const std::string& backend, const AllReduceCase& c,
                              const std::vector<RankOutcome>& by_rank, const World& world) {
  std::vector<double> seconds;
  seconds.reserve(by_rank.size());
  for (const auto& outcome : by_rank) seconds.push_back(outcome.seconds);
  const RankTimes times = aggregate_rank_times(seconds);  // throws when empty

  ProbeResult r;
  r.id = allreduce_probe_id(backend);
  r.scope = world_scope(world);
  r.params = allreduce_params(c);
  const auto self = static_cast<std::size_t>(world.rank) < by_rank.size() ? static_cast<std::size_t>(world.rank) : 0;
  r.metrics[metrics::time_us] = Metric::of(by_rank[self].seconds * 1e6);
  r.metrics[metrics::time_us_min] = Metric::of(times.min_s * 1e6);
  r.metrics[metrics::time_us_avg] = Metric::of(times.avg_s * 1e6);
  r.metrics[metrics::time_us_max] = Metric::of(times.max_s * 1e6);
  // Ranks as launched: in a group of ranks (a node, a rail) the index differs.
  r.metrics[metrics::slowest_rank] = Metric::of(world.places.at(static_cast<std::size_t>(times.slowest_rank)).rank);
  const double bytes = static_cast<double>(c.bytes);
  r.metrics[metrics::algbw_GBps] = Metric::of(algbw_GBps(bytes, times.avg_s));
  r.metrics[metrics::busbw_GBps] = Metric::of(busbw_GBps(Collective::all_reduce, bytes, times.avg_s, c.nranks));

  const auto& own = by_rank[self].wrong;
  r.metrics[metrics::wrong_elements] = own ? Metric::of(static_cast<double>(*own)) : Metric::missing();
  std::optional<std::uint64_t> total;
  int wrong_ranks = 0;
  for (const auto& outcome : by_rank) {
    if (!outcome.wrong) continue;
    total = total.value_or(0) + *outcome.wrong;
    if (*outcome.wrong > 0) ++wrong_ranks;
  }
  r.metrics[metrics::wrong_elements_total] = total ? Metric::of(static_cast<double>(*total)) : Metric::missing();
  r.metrics[metrics::wrong_ranks] = total ? Metric::of(wrong_ranks) : Metric::missing();
  return r;
}

ProbeResult wrong_data_result(const std::string& backend, const AllReduceCase& c, std::uint64_t wrong,
                              const World& world, const std::string& device) {
  ProbeResult r;
  r.id = allreduce_probe_id(backend);
  r.status = ProbeStatus::failed;
  r.scope = rank_scope(world, device);
  r.params = allreduce_params(c);
  r.metrics[metrics::wrong_elements] = Metric::of(static_cast<double>(wrong));
  r.error = std::to_string(wrong) + " of " + std::to_string(c.count) + " " + to_string(c.dtype) +
            " elements wrong in the " + (c.in_place ? "in-place" : "out-of-place") + " all-reduce result on host " +
            world.host() + " rank " + std::to_string(world.self().rank) + (device.empty() ? "" : " (" + device + ")");
  return r;
}

}  // namespace ibgpu
