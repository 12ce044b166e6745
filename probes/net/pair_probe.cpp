#include "probes/net/pair_probe.h"

#include <algorithm>

namespace ibgpu {

int fitted_bw_iters(std::size_t size, int per_iteration_messages, int requested) {
  if (requested > 0) return requested;
  // Move 256 MiB per size, in at most 5000 messages (perftest's default count):
  // small messages stop at the count, large ones at the byte budget. Never fewer than 10
  // iterations: an MPI window of 64 x 8 MiB is 512 MiB, and a run of 4 such iterations (the
  // budget's count) was decided by one preemption.
  constexpr double kBudgetBytes = 256.0 * 1024 * 1024;
  constexpr double kMaxMessages = 5000;
  constexpr double kMinIters = 10;
  const double messages = std::max(per_iteration_messages, 1);
  const double per_iteration = static_cast<double>(std::max<std::size_t>(size, 1)) * messages;
  return static_cast<int>(
      std::clamp(kBudgetBytes / per_iteration, kMinIters, std::max(kMinIters, kMaxMessages / messages)));
}

int warmup_for(int iters, int requested) { return requested > 0 ? requested : std::max(1, iters / 10); }

CappedLoop::CappedLoop(int warmup, int iters, double cap_s, int check_every)
    : warmup_(std::max(0, warmup)),
      iters_(std::max(1, iters)),
      check_every_(std::max(1, check_every)),
      began_(std::chrono::steady_clock::now()),
      cap_(cap_s) {}

bool CappedLoop::over() const { return std::chrono::steady_clock::now() - began_ >= cap_; }

bool CappedLoop::last(int it) {
  if (it < total() - 1 && it % check_every_ == 0 && over()) stop_at(it);
  return it >= total() - 1;
}

void CappedLoop::stop_at(int it) {
  capped_ = true;
  if (it < warmup_) warmup_ = it;  // the warmup ends here: this iteration is the one timed
  iters_ = it - warmup_ + 1;
}

void CappedLoop::describe(nlohmann::json& params) const {
  params["iters"] = iters_;
  params["warmup"] = warmup_;
  if (capped_) params["time_capped_s"] = cap_.count();
}

ProbeResult pair_result(const std::string& id, const PairContext& ctx, std::size_t size) {
  ProbeResult r;
  r.id = id;
  const bool first = ctx.initiator;
  r.scope.hosts = first ? std::vector<std::string>{ctx.self_host, ctx.peer_host}
                        : std::vector<std::string>{ctx.peer_host, ctx.self_host};
  r.scope.ranks = first ? std::vector<int>{ctx.self, ctx.peer} : std::vector<int>{ctx.peer, ctx.self};
  if (!ctx.self_device.empty())
    r.scope.devices = first ? std::vector<std::string>{ctx.self_device, ctx.peer_device}
                            : std::vector<std::string>{ctx.peer_device, ctx.self_device};
  r.params["size_B"] = size;
  return r;
}

}  // namespace ibgpu
