#include "probes/net/mpi_transport.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "cluster/gather.h"
#include "cluster/kept_memory.h"
#include "cluster/liveness.h"
#include "core/deadline.h"
#include "core/errors.h"
#include "core/statistics.h"
#include "core/units.h"
#include "probes/cycle_clock.h"
#include "probes/net/peer_poll.h"

namespace ibgpu {

namespace {

enum Tag { kReady = 0, kData = 1, kAck = 2, kPing = 3, kPong = 4 };

// Thrown inside a measurement when a wait runs out; turned into a result.
struct PeerSilent {
  std::string what;
};

// A stop (Ctrl-C, scancel) ends a measurement between iterations: both ends are signalled,
// and a loop whose waits all complete would otherwise run its sweep to the end while the
// launcher's SIGKILL (a second after its SIGTERM) is on its way.
void stop_if_requested() {
  if (stop_requested()) throw PeerSilent{"stopped by a signal before the measurement ended"};
}

// Ends a measurement whose wait gave up on the peer.
[[noreturn]] void peer_lost(const PairContext& ctx, const char* waiting_for) {
  const std::string peer = "host " + ctx.peer_host + " rank " + std::to_string(ctx.peer);
  if (stop_requested()) throw PeerSilent{std::string("stopped while waiting for ") + waiting_for + " from " + peer};
  throw PeerSilent{std::string("no ") + waiting_for + " from " + peer + why_given_up(ctx.peer, ctx.timeout)};
}

MPI_Request post_send(const void* buf, std::size_t bytes, const PairContext& ctx, int tag) {
  MPI_Request r = MPI_REQUEST_NULL;
  mpi_check(MPI_Isend(buf, static_cast<int>(bytes), MPI_BYTE, ctx.peer, ctx.tag + tag, ctx.comm, &r), "MPI_Isend");
  return r;
}

MPI_Request post_recv(void* buf, std::size_t bytes, const PairContext& ctx, int tag) {
  MPI_Request r = MPI_REQUEST_NULL;
  mpi_check(MPI_Irecv(buf, static_cast<int>(bytes), MPI_BYTE, ctx.peer, ctx.tag + tag, ctx.comm, &r), "MPI_Irecv");
  return r;
}

// Both sides arrive before timing starts, so a late peer does not count as a
// slow link. A partner still busy with a dead peer of its own keeps beating,
// so it is waited for.
void rendezvous(const PairContext& ctx) {
  TransferMemory<std::array<int, 2>> ids(std::array<int, 2>{ctx.self, -1});  // mine, theirs
  std::vector<MPI_Request> rs{post_recv(&(*ids)[1], sizeof(int), ctx, kReady),
                              post_send(&(*ids)[0], sizeof(int), ctx, kReady)};
  if (!wait_for_peer(rs, ctx.peer, ctx.timeout)) peer_lost(ctx, "handshake");
}

// Byte 0 of the first message of an iteration (bandwidth) or of the ping (latency) says whether
// the initiator ends the measurement with it (its time cap, see CappedLoop): the peer follows.
constexpr char kGoOn = 1, kLastIteration = 2;

// A bandwidth iteration is a window of sends. So that a crawling link's iteration cannot run far
// past the time cap (64 MiB at 50 mbit is 11 s), the initiator paces it. An extra first warmup
// iteration is a single send of 1 MiB at most, to learn the rate (smaller sends measure bursts and
// latency); the planned warmup follows. Each window is what fits the rest of the cap at the rate
// seen (the full window whenever it fits, as on any healthy link; one send at least). When not
// even one message of the size fits, the measurement ends with a single 1 MiB send, timed, and
// params.message_B says so. The window travels in bytes 1-4 of the iteration's first message: the
// peer has posted the full window of receives and cancels those left unmatched. Messages under 8
// bytes always send full windows (an iteration of them is tiny).
constexpr std::size_t kPacedFrom = 8;
constexpr std::size_t kPaceBytes = 1 << 20;

int paced_window(int window, double per_message_s, double cap_left_s) {
  if (per_message_s <= 0 || window * per_message_s <= cap_left_s) return window;
  return static_cast<int>(std::clamp(std::floor(cap_left_s / per_message_s), 1.0, static_cast<double>(window)));
}

// The responder's side of a shorter window: its receives past the window are cancelled (they are
// unmatched: the initiator sends the next iteration only after this one's acknowledgement).
void cancel_unmatched(std::vector<MPI_Request>& rs, int from) {
  for (std::size_t i = static_cast<std::size_t>(from); i < rs.size(); ++i) {
    mpi_check(MPI_Cancel(&rs[i]), "MPI_Cancel");
    MPI_Status status;
    mpi_check(MPI_Wait(&rs[i], &status), "MPI_Wait");
    int cancelled = 0;
    MPI_Test_cancelled(&status, &cancelled);
    if (!cancelled) throw std::runtime_error("a receive past the announced window was matched");
  }
}

// The loops below cost what OSU's loops cost (osu_bw, osu_latency): requests in a fixed
// array, receives posted before the peer can send, waits that spin MPI_Test (PeerPoll keeps the
// deadline off the fast path), one timestamp per iteration. heartbeat() is a counter increment
// on most calls.

ProbeResult measure_bw(const PairContext& ctx, const NetSettings& settings, std::size_t size) {
  ProbeResult r = pair_result(kMpiBwProbe, ctx, size);
  const int window = std::max(1, settings.window);
  const int iters = fitted_bw_iters(size, window, settings.bw_iters);
  const bool paced = size >= kPacedFrom;
  r.params["window"] = window;
  r.params["recv_layout"] = kRecvLayout;
  r.params["transport"] = "mpi";

  // OSU's layout: every message of a window lands in the same receive buffer (it stays in the
  // cache, as it does for osu_bw). Kept past a wait that gives up: the peer's transfer may
  // still copy into it.
  TransferMemory<std::vector<char>> buffer(size, kGoOn);
  TransferMemory<int> ack(0);
  std::vector<MPI_Request> rs(static_cast<std::size_t>(window), MPI_REQUEST_NULL);
  MPI_Request ack_request = MPI_REQUEST_NULL;
  PeerPoll poll(ctx.peer, ctx.timeout);
  double fastest_GBps = 0, per_byte_s = 0, timed_bytes = 0;
  long long timed_messages = 0;
  std::size_t smallest_message = size;  // in the timed iterations
  rendezvous(ctx);
  CappedLoop loop(warmup_for(iters, settings.warmup) + (paced ? 1 : 0), iters, settings.time_cap_s);
  const auto began = Clock::now();
  Clock::time_point start{}, t0 = began;
  for (int it = 0; it < loop.total(); ++it) {
    stop_if_requested();
    heartbeat();
    bool last = false;
    int sends = window;
    std::size_t bytes = size;
    if (ctx.initiator) {
      last = loop.last(it);
      if (paced) {
        // A tenth of the cap's overrun is allowed to keep the size's own messages.
        const double cap_left = 1.1 * settings.time_cap_s - Seconds(t0 - began).count();
        const double message_s = per_byte_s * static_cast<double>(size);
        if ((it == 0 && loop.warmup() > 0) || message_s > std::max(cap_left, 0.1 * settings.time_cap_s)) {
          if (it > 0 && !last) {
            loop.stop_at(it);
            last = true;
          }
          sends = 1;
          bytes = std::min(size, kPaceBytes);
        } else {
          sends = paced_window(window, message_s, cap_left);
        }
        std::memcpy(buffer->data() + 1, &sends, sizeof sends);
      }
      (*buffer)[0] = last ? kLastIteration : kGoOn;
    }
    if (it == loop.warmup()) start = t0;
    if (ctx.initiator) {
      ack_request = post_recv(&*ack, sizeof(int), ctx, kAck);
      for (int w = 0; w < sends; ++w) rs[static_cast<std::size_t>(w)] = post_send(buffer->data(), bytes, ctx, kData);
      if (!poll.wait(rs.data(), sends)) peer_lost(ctx, "data receipt");
      if (!poll.wait(ack_request)) peer_lost(ctx, "acknowledgement");
    } else {
      for (auto& request : rs) request = post_recv(buffer->data(), size, ctx, kData);
      if (!poll.wait(rs[0])) peer_lost(ctx, "data");
      // Every message of the window carries the same first bytes.
      if (paced) std::memcpy(&sends, buffer->data() + 1, sizeof sends);
      if (sends < 1 || sends > window)
        throw std::runtime_error("the peer announced a window of " + std::to_string(sends));
      cancel_unmatched(rs, sends);
      if (!poll.wait(rs.data() + 1, sends - 1)) peer_lost(ctx, "data");
      last = (*buffer)[0] == kLastIteration;
      ack_request = post_send(&*ack, sizeof(int), ctx, kAck);
      if (!poll.wait(ack_request)) peer_lost(ctx, "acknowledgement receipt");
    }
    const auto t1 = Clock::now();  // one read per window of messages
    const double took = Seconds(t1 - t0).count();
    t0 = t1;
    const double moved = static_cast<double>(bytes) * sends;
    per_byte_s = took / moved;
    if (loop.timed(it)) {
      timed_messages += sends;
      timed_bytes += moved;
      smallest_message = std::min(smallest_message, bytes);
      fastest_GBps = std::max(fastest_GBps, gbytes_per_s(moved, took));
    }
    if (last) break;
  }
  loop.describe(r.params);
  r.params["messages"] = timed_messages;
  if (smallest_message < size) r.params["message_B"] = smallest_message;
  if (!ctx.initiator) return r;  // the responder reports only what broke
  const double elapsed = Seconds(t0 - start).count();
  r.metrics[metrics::bw_avg_GBps] = Metric::of(gbytes_per_s(timed_bytes, elapsed));
  r.metrics[metrics::bw_avg_Gbps] = Metric::of(gbits_per_s(timed_bytes, elapsed));
  r.metrics[metrics::bw_peak_GBps] = Metric::of(fastest_GBps);
  r.metrics[metrics::msg_rate_Mpps] = Metric::of(mpps(static_cast<double>(timed_messages), elapsed));
  return r;
}

// The cap, a stop request and the heartbeat are looked at every 64 round trips: a clock read
// or two calls per round trip would be part of what is measured.
constexpr int kLatCapEvery = 64;

ProbeResult measure_lat(const PairContext& ctx, const NetSettings& settings, std::size_t size) {
  ProbeResult r = pair_result(kMpiLatProbe, ctx, size);
  const int iters = std::max(1, settings.lat_iters);
  r.params["transport"] = "mpi";
  TransferMemory<std::vector<char>> out(size, kGoOn), in(size, 0);
  // Cycle-counter stamps (probes/cycle_clock.h) taken as each timed ping leaves, while it is on
  // its way (a stamp taken between the pong and the next ping would be part of the round trip):
  // sample i runs from ping i's stamp to ping i + 1's, the last one to its pong.
  std::vector<std::uint64_t> stamps(ctx.initiator ? static_cast<std::size_t>(iters) + 1 : 0);
  PeerPoll poll(ctx.peer, ctx.timeout);
  rendezvous(ctx);
  CappedLoop loop(warmup_for(iters, settings.warmup), iters, settings.time_cap_s, kLatCapEvery);
  const TickCalibration calibration;
  // Each side posts its receive right after its own send, so the peer's message finds it posted
  // and the posting is not on the round trip's path (posted before the send, it is: 20% of an
  // 8-byte round trip on shared memory).
  MPI_Request receive = ctx.initiator ? MPI_REQUEST_NULL : post_recv(in->data(), size, ctx, kPing);
  MPI_Request send = MPI_REQUEST_NULL;
  for (int it = 0; it < loop.total(); ++it) {
    if (it % kLatCapEvery == 0) {
      stop_if_requested();
      heartbeat();
    }
    if (ctx.initiator) {
      const bool last = loop.last(it);
      (*out)[0] = last ? kLastIteration : kGoOn;
      send = post_send(out->data(), size, ctx, kPing);
      if (loop.timed(it)) stamps[static_cast<std::size_t>(it - loop.warmup())] = cycle_ticks();
      receive = post_recv(in->data(), size, ctx, kPong);
      if (!poll.wait(send)) peer_lost(ctx, "ping receipt");
      if (!poll.wait(receive)) peer_lost(ctx, "pong");
      if (last) {
        stamps[static_cast<std::size_t>(it - loop.warmup()) + 1] = cycle_ticks();
        break;
      }
    } else {
      if (!poll.wait(receive)) peer_lost(ctx, "ping");
      const bool last = (*in)[0] == kLastIteration;
      send = post_send(out->data(), size, ctx, kPong);
      if (!last) receive = post_recv(in->data(), size, ctx, kPing);
      if (!poll.wait(send)) peer_lost(ctx, "pong receipt");
      if (last) break;
    }
  }
  loop.describe(r.params);
  if (!ctx.initiator) return r;
  const double us_per_tick = calibration.us_per_tick();
  std::vector<double> samples_us;
  samples_us.reserve(static_cast<std::size_t>(loop.iters()));
  for (std::size_t i = 1; i <= static_cast<std::size_t>(loop.iters()); ++i)
    samples_us.push_back(ticks_to_us(stamps[i - 1], stamps[i], us_per_tick) / 2);
  r.metrics[metrics::lat_us] = Metric::of(summarize_latency(std::move(samples_us)));
  return r;
}

template <class Measure>
std::vector<ProbeResult> each_size(const PairContext& ctx, const std::vector<std::size_t>& sizes, const char* id,
                                   Measure measure) {
  std::vector<ProbeResult> results;
  for (std::size_t size : sizes) {
    try {
      // Byte 0 carries the end of the measurement (kLastIteration).
      if (size == 0) throw std::invalid_argument("message size 0: sizes start at 1 byte");
      ProbeResult r = measure(size);
      // The initiator reports a completed measurement; the responder only speaks up when something broke.
      if (ctx.initiator) results.push_back(std::move(r));
    } catch (const PeerSilent& e) {
      ProbeResult r = pair_result(id, ctx, size);
      r.status = ProbeStatus::timeout;
      r.error = e.what;
      results.push_back(std::move(r));
      break;  // the peer is gone: the remaining sizes would each wait the full timeout
    } catch (const std::exception& e) {
      ProbeResult r = pair_result(id, ctx, size);
      r.status = ProbeStatus::error;
      r.error = e.what();
      results.push_back(std::move(r));
      break;
    }
  }
  return results;
}

}  // namespace

std::vector<ProbeResult> MpiTransport::bandwidth(const PairContext& ctx, const NetSettings& settings) {
  return each_size(ctx, settings.bw_sizes, kMpiBwProbe,
                   [&](std::size_t size) { return measure_bw(ctx, settings, size); });
}

std::vector<ProbeResult> MpiTransport::latency(const PairContext& ctx, const NetSettings& settings) {
  return each_size(ctx, settings.lat_sizes, kMpiLatProbe,
                   [&](std::size_t size) { return measure_lat(ctx, settings, size); });
}

}  // namespace ibgpu
