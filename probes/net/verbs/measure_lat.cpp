#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <vector>

#include "probes/net/verbs/measure.h"
#include "probes/stats.h"

namespace ibgpu::verbs {

namespace {

using Seconds = std::chrono::duration<double>;

struct LatencyPlan {
  int iters = 0;
  int warmup = 0;
  bool inline_data = false;
};

// Both sides agree the size can run (and the receive region is clean) before
// either writes; a local problem is told to the peer instead of leaving it waiting.
LatencyPlan start_size(ProbeResult& r, Endpoint& ep, const PairContext& ctx, const NetSettings& settings,
                       std::size_t size, std::string problem = {}) {
  r.params.update(ep.describe());
  r.params["transport"] = "verbs";
  LatencyPlan plan;
  plan.iters = std::max(1, settings.lat_iters);
  plan.warmup = warmup_for(plan.iters, settings.warmup);
  // Inline data is copied into the work request at post time: no DMA read of
  // the source, which is most of a small message's latency on real HCAs.
  plan.inline_data = size <= ep.max_inline();
  r.params["iters"] = plan.iters;
  r.params["warmup"] = plan.warmup;
  r.params["inline"] = plan.inline_data;

  if (problem.empty()) problem = size_problem(ep, size, true);
  if (problem.empty()) std::memset(ep.receive_region(), 0, size);
  const auto reply = swap_images(
      ctx, kLatSync, encode(Notice{problem.empty() ? NoticeCode::ok : NoticeCode::error, problem}), ctx.timeout_s);
  if (!problem.empty()) throw AnnouncedFailure(problem);
  if (!reply) throw WaitExpired(silence_text(ctx, "start of the latency run", ctx.timeout_s));
  const auto notice = decode_notice(*reply);
  if (!notice || notice->code != NoticeCode::ok)
    throw PeerFailed(peer_name(ctx) + " cannot run it: " + (notice ? notice->text : std::string("unreadable notice")));
  return plan;
}

// Completions seen but not yet waited for. A receive can complete before the
// send that preceded it is reported (ACK and the peer's next message race),
// so what one wait sees in surplus is kept for the next.
struct Tally {
  int sends = 0;
  int recvs = 0;
};

// Polls until `sends` send and `recvs` receive completions are available, then
// takes them; each consumed receive is posted again so the peer never meets an
// empty receive queue.
void await(Endpoint& ep, const PairContext& ctx, AbortWatch& abort, const std::string& peer, Tally& tally, int sends,
           int recvs) {
  std::array<ibv_wc, 4> wc{};
  Waiter waiter(ctx, "completion", nullptr, &abort);
  while (tally.sends < sends || tally.recvs < recvs) {
    const int n = ep.poll(wc.data(), static_cast<int>(wc.size()));
    if (n == 0) {
      waiter.tick();
      continue;
    }
    for (int i = 0; i < n; ++i) {
      const ibv_wc& c = wc[static_cast<std::size_t>(i)];
      check_completion(c, peer);
      if (c.wr_id & kRecvBit) {
        ++tally.recvs;
        ep.post_recv(kRecvBit);
      } else {
        ++tally.sends;
      }
    }
  }
  tally.sends -= sends;
  tally.recvs -= recvs;
}

// The peer's write has landed when the last byte of the message shows this
// round's mark: HCAs place an RDMA write in address order (perftest relies on it).
void spin_until(volatile const std::uint8_t* last_byte, std::uint8_t mark, const PairContext& ctx, AbortWatch& abort) {
  Waiter waiter(ctx, "write", nullptr, &abort);
  while (*last_byte != mark) waiter.tick();
}

double half_round_trip_us(Clock::time_point t0) { return Seconds(Clock::now() - t0).count() * 1e6 / 2; }

void finish(ProbeResult& r, const PairContext& ctx, std::vector<double> samples_us) {
  if (ctx.initiator) r.metrics["lat_us"] = Metric::of(summarize_latency(std::move(samples_us)));
}

}  // namespace

ProbeResult measure_write_lat(Endpoint& ep, const PairContext& ctx, const NetSettings& settings, std::size_t size,
                              AbortWatch& abort) {
  ProbeResult r = pair_result(kWriteLatId, ctx, size);
  const LatencyPlan plan = start_size(r, ep, ctx, settings, size);
  const std::string peer = peer_name(ctx);
  volatile const std::uint8_t* in = ep.receive_region() + size - 1;
  std::uint8_t* out = ep.send_region() + size - 1;
  std::vector<double> samples_us;
  samples_us.reserve(static_cast<std::size_t>(plan.iters));
  Tally tally;
  // The mark wraps at 256; each side only ever waits for the value after the
  // one it last saw, so the wrap cannot match early.
  for (int it = 1; it <= plan.warmup + plan.iters; ++it) {
    const auto mark = static_cast<std::uint8_t>(it);
    if (ctx.initiator) {
      const auto t0 = Clock::now();
      *out = mark;
      ep.post_write(0, 0, size, static_cast<std::uint64_t>(it), true, plan.inline_data);
      await(ep, ctx, abort, peer, tally, 1, 0);
      spin_until(in, mark, ctx, abort);
      if (it > plan.warmup) samples_us.push_back(half_round_trip_us(t0));
    } else {
      spin_until(in, mark, ctx, abort);
      *out = mark;
      ep.post_write(0, 0, size, static_cast<std::uint64_t>(it), true, plan.inline_data);
      await(ep, ctx, abort, peer, tally, 1, 0);
    }
  }
  finish(r, ctx, std::move(samples_us));
  return r;
}

ProbeResult measure_send_lat(Endpoint& ep, const PairContext& ctx, const NetSettings& settings, std::size_t size,
                             AbortWatch& abort, const std::string& problem) {
  ProbeResult r = pair_result(kSendLatId, ctx, size);
  const LatencyPlan plan = start_size(r, ep, ctx, settings, size, problem);
  const std::string peer = peer_name(ctx);
  std::vector<double> samples_us;
  samples_us.reserve(static_cast<std::size_t>(plan.iters));
  Tally tally;
  for (int it = 1; it <= plan.warmup + plan.iters; ++it) {
    const auto id = static_cast<std::uint64_t>(it);
    if (ctx.initiator) {
      const auto t0 = Clock::now();
      ep.post_send(size, id, plan.inline_data);
      await(ep, ctx, abort, peer, tally, 1, 1);
      if (it > plan.warmup) samples_us.push_back(half_round_trip_us(t0));
    } else {
      await(ep, ctx, abort, peer, tally, 0, 1);
      ep.post_send(size, id, plan.inline_data);
      await(ep, ctx, abort, peer, tally, 1, 0);
    }
  }
  finish(r, ctx, std::move(samples_us));
  return r;
}

}  // namespace ibgpu::verbs
