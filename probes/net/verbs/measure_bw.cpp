#include <algorithm>
#include <array>
#include <chrono>
#include <vector>

#include "core/units.h"
#include "probes/net/verbs/bw_schedule.h"
#include "probes/net/verbs/measure.h"

namespace ibgpu::verbs {

namespace {

struct Streamed {
  double seconds = 0;  // from the first post to the last completion
  int writes = 0;
};

// Posts `count` writes keeping up to the send depth in flight. Past `cap_end` it posts one last
// (signalled) write and ends when that completes: a crawling link is measured, not waited for.
// `marks`, when given, records progress at every completion batch.
Streamed stream_writes(Endpoint& ep, const PairContext& ctx, std::size_t size, int count, int every,
                       const Deadline& run, Clock::time_point cap_end, AbortWatch& abort,
                       std::vector<Progress>* marks) {
  if (count <= 0) return {};
  const std::string peer = peer_name(ctx);
  const std::size_t region = std::min<std::size_t>(ep.region_bytes(), ep.peer().region_bytes);
  const int depth = ep.send_depth();
  std::array<ibv_wc, 16> wc{};
  Waiter waiter(ctx, "write completion", &run, &abort);
  int posted = 0, completed = 0;
  const auto start = Clock::now();
  auto last = start;
  if (marks) marks->push_back({0, 0});
  while (completed < count) {
    // Unsignalled writes hold their send-queue slot until a later signalled
    // one completes, so "in flight" counts from the last completion seen.
    if (posted < count - 1 && Clock::now() >= cap_end) count = posted + 1;
    while (posted < count && posted - completed < depth) {
      const std::size_t offset = slot_offset(posted, size, region);
      ep.post_write(offset, offset, size, static_cast<std::uint64_t>(posted), should_signal(posted, count, every),
                    false);
      ++posted;
    }
    const int n = ep.poll(wc.data(), static_cast<int>(wc.size()));
    waiter.tick();
    if (n == 0) continue;
    for (int i = 0; i < n; ++i) {
      const ibv_wc& c = wc[static_cast<std::size_t>(i)];
      check_completion(c, peer);
      // RC completes in order: a signalled write implies every write before it landed.
      completed = std::max(completed, static_cast<int>(c.wr_id) + 1);
    }
    last = Clock::now();
    waiter.progress();
    if (marks) marks->push_back({Seconds(last - start).count(), completed});
  }
  return {Seconds(last - start).count(), count};
}

}  // namespace

std::string size_problem(const Endpoint& ep, std::size_t size, bool cpu_visible) {
  const std::size_t limit =
      std::min({ep.region_bytes(), static_cast<std::size_t>(ep.peer().region_bytes), ep.max_message()});
  if (size == 0 || size > limit)
    return "message size " + std::to_string(size) + " B outside 1.." + std::to_string(limit) + " B on this connection";
  if (cpu_visible && !ep.receive_region()) return "this measurement needs host memory";
  return {};
}

ProbeResult measure_write_bw(Endpoint& ep, const PairContext& ctx, const NetSettings& settings, std::size_t size,
                             AbortWatch& abort) {
  ProbeResult r = pair_result(kWriteBwId, ctx, size);
  r.params.update(ep.describe());
  r.params["transport"] = "verbs";
  if (const auto problem = size_problem(ep, size, false); !problem.empty()) throw std::runtime_error(problem);
  const int planned = fitted_bw_iters(size, 1, settings.bw_iters);
  const int every = signal_interval(size, ep.send_depth());
  r.params["tx_depth"] = ep.send_depth();
  r.params["signal_every"] = every;

  // One budget for the whole size: the responder waits on it (see VerbsTransport::bandwidth).
  const Deadline run{ctx.timeout};
  const auto cap_end = Clock::now() + std::chrono::duration_cast<Clock::duration>(Seconds(settings.time_cap_s));
  const int warmup =
      stream_writes(ep, ctx, size, warmup_for(planned, settings.warmup), every, run, cap_end, abort, nullptr).writes;
  std::vector<Progress> marks;
  const Streamed timed = stream_writes(ep, ctx, size, planned, every, run, cap_end, abort, &marks);
  const int iters = timed.writes;
  const double elapsed = timed.seconds;
  r.params["iters"] = iters;
  r.params["warmup"] = warmup;
  if (iters < planned) r.params["time_capped_s"] = settings.time_cap_s;

  const double bytes = static_cast<double>(size) * iters;
  r.metrics[metrics::bw_avg_GBps] = Metric::of(gbytes_per_s(bytes, elapsed));
  r.metrics[metrics::bw_avg_Gbps] = Metric::of(gbits_per_s(bytes, elapsed));
  r.metrics[metrics::msg_rate_Mpps] = Metric::of(mpps(iters, elapsed));
  // Peak over stretches of at least a tenth of the run, in messages (and one
  // signal interval) and in time: a burst of completions cannot claim a rate.
  const double peak = peak_message_rate(marks, std::max<long long>(every, iters / 10), elapsed / 10);
  // Completions can arrive in one burst at the end (every WR fits the send
  // queue), leaving no stretch long enough to measure: the peak is then never
  // below the whole run's rate.
  const double avg_rate = elapsed > 0 ? static_cast<double>(iters) / elapsed : 0;
  r.metrics[metrics::bw_peak_GBps] = Metric::of(std::max(peak, avg_rate) * static_cast<double>(size) / 1e9);
  return r;
}

}  // namespace ibgpu::verbs
