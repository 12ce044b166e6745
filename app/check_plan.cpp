#include "app/check_plan.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>

#include "cluster/rank_pairs.h"
#include "core/units.h"
#include "probes/net/pair_probe.h"

namespace ibgpu {

PresetDefaults preset_defaults(CheckPreset preset) {
  PresetDefaults d;
  switch (preset) {
    case CheckPreset::quick:
      d = {PairMode::quick, {std::size_t{1} << 20}, 200, {std::size_t{1} << 20}, 5, 1};
      break;
    case CheckPreset::standard:
      d = {PairMode::all,
           {std::size_t{1} << 20, std::size_t{8} << 20},
           1000,
           {std::size_t{1} << 20, std::size_t{16} << 20},
           10,
           1};
      break;
    case CheckPreset::full:
      d = {PairMode::all,
           {std::size_t{64} << 10, std::size_t{1} << 20, std::size_t{8} << 20, std::size_t{64} << 20},
           10000,
           {std::size_t{64} << 10, std::size_t{1} << 20, std::size_t{16} << 20, std::size_t{256} << 20},
           20,
           2};
      break;
  }
  return d;
}

namespace {

// One round of network pairs; with `worst`, every measurement runs to its time cap (a
// crawling link), otherwise at the nominal speed and never past the cap.
double network_round_seconds(const NetOptions& net, const CostModel& cost, bool worst = false) {
  const NetSettings& s = net.settings;
  const double cap = s.time_cap_s;
  auto bounded = [&](double nominal) { return worst ? cap : std::min(nominal, cap); };
  const double window = net.transport == NetTransport::mpi ? std::max(s.window, 1) : 1.0;
  double t = cost.pair_setup_s;
  if (net.bandwidth)
    for (std::size_t size : s.bw_sizes) {
      const int iters = fitted_bw_iters(size, static_cast<int>(window), s.bw_iters);
      const double bytes =
          static_cast<double>(iters + warmup_for(iters, s.warmup)) * window * static_cast<double>(size);
      t += bounded(bytes / (cost.bw_GBps * 1e9));
    }
  if (net.latency) {
    const double kinds = net.transport == NetTransport::mpi ? 1 : 2;  // verbs: write and send latency
    for (std::size_t size : s.lat_sizes) {
      const double iters = s.lat_iters + warmup_for(s.lat_iters, s.warmup);
      t += kinds * bounded(iters * (2 * cost.lat_us * 1e-6 + static_cast<double>(size) / (cost.bw_GBps * 1e9)));
    }
  }
  return t;
}

double allreduce_seconds(const CollectiveOptions& c, const CostModel& cost, int placements, bool worst = false) {
  const AllReduceSettings& s = c.settings;
  const double modes = (s.out_of_place ? 1 : 0) + (s.in_place ? 1 : 0);
  double per_placement = cost.collective_setup_s;
  for (std::size_t size : s.sizes) {
    const double nominal =
        (s.iters + s.warmup) * (2 * static_cast<double>(size) / (cost.busbw_GBps * 1e9) + 2 * cost.lat_us * 1e-6);
    // The first warmup iteration always runs, then what fits the cap (at least one iteration).
    const double warm = std::min(s.warmup, 1) * nominal / std::max(1, s.iters + s.warmup);
    per_placement += modes * (worst ? std::max(s.time_cap_s, warm) : std::min(nominal, std::max(s.time_cap_s, warm)));
  }
  return placements * per_placement;
}

}  // namespace

bool time_left_for_another_step(std::optional<Seconds> budget, Seconds elapsed) {
  return !budget || elapsed < kBudgetForStartingStep * *budget;
}

bool sweep_to_floor(CollectiveOptions& allreduce, const AllReduceLimits& limits) {
  auto& sizes = allreduce.settings.sizes;
  if (!limits.has_floor()) return false;
  if (std::any_of(sizes.begin(), sizes.end(), [&](std::size_t s) { return s >= limits.min_size_B; })) return false;
  sizes.push_back(limits.min_size_B);
  allreduce.floor_sizes = {limits.min_size_B};
  allreduce.floor_backend = limits.backend;
  return true;
}

std::string floor_plan_text(const CheckSteps& steps, const LaunchShape& shape, const CostModel& cost,
                            const AllReduceLimits& limits) {
  if (!steps.collectives || !limits.has_floor()) return "";
  const std::string floor = "the profile's " + std::string(to_string(limits.backend)) + " all-reduce floor";
  if (!steps.allreduce.floor_sizes.empty())
    return "all-reduce: " + format_sizes(steps.allreduce.floor_sizes) + " added to the sweep for " + floor +
           " (run over " + to_string(limits.backend) + " only)";
  const auto& sizes = steps.allreduce.settings.sizes;
  if (sizes.empty()) return "";
  const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
  if (largest >= limits.min_size_B) return "";
  CollectiveOptions reaching = steps.allreduce;
  reaching.settings.sizes = {limits.min_size_B};
  return "all-reduce: the sweep stops at " + format_size(largest) + ", below the " + format_size(limits.min_size_B) +
         " " + floor + " is written for: recorded, not judged by it (--allreduce-sizes judged adds " +
         format_size(limits.min_size_B) + ", about " +
         duration_text(allreduce_seconds(reaching, cost, shape.placements) -
                       shape.placements * cost.collective_setup_s) +
         " more)";
}

int leaf_rounds_of(const CheckSteps& steps, const LaunchShape& shape) {
  const PairPlan& pairs = steps.net.pairs;
  return pairs.mode == PairMode::peers && pairs.peers < shape.all_pair_rounds ? shape.leaf_rounds : 0;
}

int pair_rounds_of(const CheckSteps& steps, const LaunchShape& shape) {
  switch (steps.net.pairs.mode) {
    case PairMode::quick:
      return shape.quick_pair_rounds;
    case PairMode::peers:
      return std::min(steps.net.pairs.peers, shape.all_pair_rounds) + leaf_rounds_of(steps, shape) +
             shape.loopback_rounds;
    case PairMode::all:
    case PairMode::list:
      break;
  }
  return shape.pair_rounds;
}

double estimate_seconds(const CheckSteps& steps, const LaunchShape& shape, const CostModel& cost) {
  double t = pair_rounds_of(steps, shape) * network_round_seconds(steps.net, cost);
  if (steps.collectives) t += allreduce_seconds(steps.allreduce, cost, shape.placements);
  return t;
}

double worst_case_seconds(const CheckSteps& steps, const LaunchShape& shape, const CostModel& cost) {
  double t = pair_rounds_of(steps, shape) * network_round_seconds(steps.net, cost, true);
  if (steps.collectives) t += allreduce_seconds(steps.allreduce, cost, shape.placements, true);
  return t;
}

namespace {

// peers:K's host pairs as the planner lays them out, over the hosts the power model has
// (health/power.h PlanShape::pairs): its spread rounds and leaf round are not the model's ring. None
// for the plans the ring lays out alike (one quick round, every pair) or has more peers than it.
std::vector<std::pair<int, int>> power_model_pairs(PairPlan plan, int hosts) {
  const int n = power_model_hosts(hosts);
  if (plan.mode != PairMode::peers || plan.peers > kPowerModelPeers || n < 2) return {};
  if (!plan.leaf_of_host.empty()) plan.leaf_of_host.resize(static_cast<std::size_t>(n));
  std::vector<std::pair<int, int>> pairs;
  for (const Round& round : host_rounds(plan, n))
    for (const NodePair& p : round) pairs.emplace_back(p.a, p.b);
  return pairs;
}

}  // namespace

PlanShape power_shape(const CheckSteps& steps, const LaunchShape& shape) {
  PlanShape p;
  p.hosts = shape.hosts;
  p.rails = std::max(1, shape.ranks / std::max(1, shape.hosts));
  p.peers = peers_per_host(steps.net.pairs, shape.hosts);
  p.retest_passes = steps.retests;
  p.pairs = power_model_pairs(steps.net.pairs, shape.hosts);
  return p;
}

DetectChoice plan_to_detect(const CheckSteps& steps, const LaunchShape& shape, const Profile& profile,
                            const DetectTarget& target) {
  std::vector<PairPlan> candidates;
  PairPlan plan = steps.net.pairs;
  plan.mode = PairMode::quick;
  candidates.push_back(plan);
  for (auto k = std::rbegin(kPeerPlans); k != std::rend(kPeerPlans); ++k)
    if (*k < shape.hosts - 1) {
      plan.mode = PairMode::peers;
      plan.peers = *k;
      candidates.push_back(plan);
    }
  plan.mode = PairMode::all;
  candidates.push_back(plan);
  const NoiseModel noise{profile.confidence.default_noise};
  DetectChoice best;
  for (const PairPlan& pairs : candidates) {
    CheckSteps trial = steps;
    trial.net.pairs = pairs;
    PlanPower power = plan_power(power_shape(trial, shape), profile.fleet, noise, {1 - target.slowed});
    const double found = power.faults.front().node_found;
    if (best.power.faults.empty() || found > best.power.faults.front().node_found) {
      best.pairs = pairs;
      best.power = std::move(power);
    }
    if (found >= target.power) {
      best.reached = true;
      break;
    }
  }
  return best;
}

CheckPlan plan_check(const CheckSteps& requested, const LaunchShape& shape, const CostModel& cost,
                     std::optional<Seconds> budget) {
  CheckPlan plan;
  plan.steps = requested;
  plan.budget = budget;
  plan.estimate_s = estimate_seconds(plan.steps, shape, cost);
  plan.worst_case_s = worst_case_seconds(plan.steps, shape, cost);
  if (!budget) return plan;
  const double target = 0.8 * budget->count();  // the rest: re-tests, stragglers, the report
  CheckSteps& s = plan.steps;
  auto over = [&] { return (plan.estimate_s = estimate_seconds(s, shape, cost)) > target; };

  // Each step sheds one thing and says what; the order is least value lost first.
  const std::vector<std::function<std::string()>> steps = {
      [&]() -> std::string {  // the judge reads bandwidth at the largest size: keep it
        auto& sizes = s.net.settings.bw_sizes;
        if (!s.net.bandwidth || sizes.size() < 2) return "";
        const auto smallest = std::min_element(sizes.begin(), sizes.end());
        const std::string what = "bandwidth size " + format_size(*smallest);
        sizes.erase(smallest);
        return what;
      },
      [&]() -> std::string {  // the largest pair plan that fits
        const PairPlan from = s.net.pairs;
        if (from.mode != PairMode::all && from.mode != PairMode::peers) return "";
        const int from_rounds = pair_rounds_of(s, shape);
        const std::string was =
            from.mode == PairMode::all ? "rounds of every pair" : "rounds of " + pair_plan_name(from);
        for (const int k : kPeerPlans) {
          CheckSteps trial = s;
          trial.net.pairs.mode = PairMode::peers;
          trial.net.pairs.peers = k;
          const int rounds = pair_rounds_of(trial, shape);
          if (rounds < 1 || rounds >= from_rounds || estimate_seconds(trial, shape, cost) > target) continue;
          s.net.pairs = trial.net.pairs;
          return "pairs: " + pair_plan_name(s.net.pairs) + ", every host meets " + std::to_string(k) +
                 " peers spread over the host list (" + std::to_string(rounds) + " instead of " +
                 std::to_string(from_rounds) + " " + was + ")";
        }
        if (shape.quick_pair_rounds >= from_rounds) return "";
        s.net.pairs.mode = PairMode::quick;
        return "pairs: one quick round (" + std::to_string(shape.quick_pair_rounds) + " instead of " +
               std::to_string(from_rounds) + " " + was + ")";
      },
      [&]() -> std::string {
        if (s.retests <= 1) return "";
        s.retests = 1;
        return "re-test passes beyond the first";
      },
      [&]() -> std::string {
        auto& sizes = s.allreduce.settings.sizes;
        if (!s.collectives || sizes.size() < 2) return "";
        const auto smallest = std::min_element(sizes.begin(), sizes.end());
        const std::string what = "all-reduce size " + format_size(*smallest);
        sizes.erase(smallest);
        return what;
      },
      [&]() -> std::string {
        int& iters = s.net.settings.lat_iters;
        if (!s.net.latency || iters <= 100) return "";
        const int from = iters;
        iters = std::max(100, iters / 4);
        return "latency iterations " + std::to_string(from) + " -> " + std::to_string(iters);
      },
      [&]() -> std::string {
        int& iters = s.allreduce.settings.iters;
        if (!s.collectives || iters <= 2) return "";
        const int from = iters;
        iters = std::max(2, iters / 4);
        return "all-reduce iterations " + std::to_string(from) + " -> " + std::to_string(iters);
      },
      [&]() -> std::string {
        if (!s.collectives) return "";
        s.collectives = false;
        return "the all-reduce step (" + format_sizes(s.allreduce.settings.sizes) + ")";
      },
      [&]() -> std::string {
        if (s.retests == 0) return "";
        s.retests = 0;
        return "re-tests";
      },
  };
  for (const auto& shed : steps) {
    while (over()) {
      std::string what = shed();
      if (what.empty()) break;
      plan.dropped.push_back(std::move(what));
    }
  }
  plan.fits = !over();
  // However slow a link, each measurement ends at its time cap: shorten the caps until even
  // that worst case fits the target too.
  if (worst_case_seconds(s, shape, cost) > target) {
    double lo = kSmallestTimeCapS, hi = s.net.settings.time_cap_s;
    for (int i = 0; i < 40; ++i) {  // bisection: the worst case grows with the cap
      const double mid = (lo + hi) / 2;
      s.net.settings.time_cap_s = s.allreduce.settings.time_cap_s = mid;
      (worst_case_seconds(s, shape, cost) > target ? hi : lo) = mid;
    }
    s.net.settings.time_cap_s = s.allreduce.settings.time_cap_s = lo;
    plan.capped_to_s = lo;
  }
  plan.worst_case_s = worst_case_seconds(s, shape, cost);
  if (plan.worst_case_s > target) plan.fits = false;
  plan.estimate_s = estimate_seconds(s, shape, cost);
  return plan;
}

}  // namespace ibgpu
