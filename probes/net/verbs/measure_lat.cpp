#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/statistics.h"
#include "core/units.h"
#include "probes/cycle_clock.h"
#include "probes/net/verbs/measure.h"

namespace ibgpu::verbs {

namespace {

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
      ctx, kLatSync, encode(Notice{problem.empty() ? NoticeCode::ok : NoticeCode::error, problem}), ctx.timeout);
  if (!problem.empty()) throw AnnouncedFailure(problem);
  if (!reply) throw WaitExpired(silence_text(ctx, "start of the latency run", ctx.timeout));
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

// Round trips in cycle-counter ticks (see probes/cycle_clock.h), from the
// post to the reply seen; turned into half round trips in microseconds at the end.
struct RoundTrips {
  explicit RoundTrips(int count) { ticks.reserve(static_cast<std::size_t>(count)); }
  void add(std::uint64_t t0) { ticks.push_back(cycle_ticks() - t0); }
  std::vector<std::uint64_t> ticks;
  TickCalibration calibration;
};

void finish(ProbeResult& r, const PairContext& ctx, const RoundTrips& trips) {
  if (!ctx.initiator) return;
  const double us_per_tick = trips.calibration.us_per_tick();
  std::vector<double> samples_us;
  samples_us.reserve(trips.ticks.size());
  for (const std::uint64_t t : trips.ticks) samples_us.push_back(ticks_to_us(0, t, us_per_tick) / 2);
  r.metrics[metrics::lat_us] = Metric::of(summarize_latency(std::move(samples_us)));
}

}  // namespace

// Byte 0 of the initiator's message says whether it ends the measurement (its time cap, see
// CappedLoop): the peer reads it once the message has landed and follows. A 1-byte RDMA write
// latency has no room for it beside the mark, and runs its planned iterations.
constexpr std::uint8_t kGoOn = 1, kLastIteration = 2;

ProbeResult measure_write_lat(Endpoint& ep, const PairContext& ctx, const NetSettings& settings, std::size_t size,
                              AbortWatch& abort) {
  ProbeResult r = pair_result(kWriteLatId, ctx, size);
  const LatencyPlan plan = start_size(r, ep, ctx, settings, size);
  const std::string peer = peer_name(ctx);
  volatile const std::uint8_t* in = ep.receive_region() + size - 1;
  volatile const std::uint8_t* in_first = ep.receive_region();
  std::uint8_t* out = ep.send_region() + size - 1;
  std::uint8_t* out_first = ep.send_region();
  const bool flagged = size >= 2;
  CappedLoop loop(plan.warmup, plan.iters, flagged ? settings.time_cap_s : HUGE_VAL);
  RoundTrips trips(plan.iters);
  Tally tally;
  // The mark wraps at 256; each side only ever waits for the value after the
  // one it last saw, so the wrap cannot match early.
  for (int it = 0; it < loop.total(); ++it) {
    const auto mark = static_cast<std::uint8_t>(it + 1);
    if (ctx.initiator) {
      const bool last = loop.last(it);
      if (flagged) *out_first = last ? kLastIteration : kGoOn;
      const std::uint64_t t0 = cycle_ticks();
      *out = mark;
      ep.post_write(0, 0, size, static_cast<std::uint64_t>(it + 1), true, plan.inline_data);
      await(ep, ctx, abort, peer, tally, 1, 0);
      spin_until(in, mark, ctx, abort);
      if (loop.timed(it)) trips.add(t0);
      if (last) break;
    } else {
      spin_until(in, mark, ctx, abort);
      const bool last = flagged && *in_first == kLastIteration;
      *out = mark;
      ep.post_write(0, 0, size, static_cast<std::uint64_t>(it + 1), true, plan.inline_data);
      await(ep, ctx, abort, peer, tally, 1, 0);
      if (last) break;
    }
  }
  loop.describe(r.params);
  finish(r, ctx, trips);
  return r;
}

ProbeResult measure_send_lat(Endpoint& ep, const PairContext& ctx, const NetSettings& settings, std::size_t size,
                             AbortWatch& abort, const std::string& problem) {
  ProbeResult r = pair_result(kSendLatId, ctx, size);
  const LatencyPlan plan = start_size(r, ep, ctx, settings, size, problem);
  const std::string peer = peer_name(ctx);
  volatile const std::uint8_t* in_first = ep.receive_region();
  std::uint8_t* out_first = ep.send_region();
  CappedLoop loop(plan.warmup, plan.iters, settings.time_cap_s);
  RoundTrips trips(plan.iters);
  Tally tally;
  for (int it = 0; it < loop.total(); ++it) {
    const auto id = static_cast<std::uint64_t>(it + 1);
    if (ctx.initiator) {
      const bool last = loop.last(it);
      *out_first = last ? kLastIteration : kGoOn;
      const std::uint64_t t0 = cycle_ticks();
      ep.post_send(size, id, plan.inline_data);
      await(ep, ctx, abort, peer, tally, 1, 1);
      if (loop.timed(it)) trips.add(t0);
      if (last) break;
    } else {
      await(ep, ctx, abort, peer, tally, 0, 1);
      const bool last = *in_first == kLastIteration;
      ep.post_send(size, id, plan.inline_data);
      await(ep, ctx, abort, peer, tally, 1, 0);
      if (last) break;
    }
  }
  loop.describe(r.params);
  finish(r, ctx, trips);
  return r;
}

}  // namespace ibgpu::verbs
