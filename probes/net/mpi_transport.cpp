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
#include "core/deadline.h"
#include "core/errors.h"
#include "probes/stats.h"

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

// Waits for the pair's requests; a silent peer ends the measurement.
void wait_all(std::vector<MPI_Request>& requests, const PairContext& ctx, const char* waiting_for) {
  if (wait_for_peer(requests, ctx.peer, ctx.timeout)) return;
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
  wait_all(rs, ctx, "handshake");
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

ProbeResult measure_bw(const PairContext& ctx, const NetSettings& settings, std::size_t size) {
  ProbeResult r = pair_result(kMpiBwProbe, ctx, size);
  const int window = effective_window(size, settings.window);
  const int iters = fitted_bw_iters(size, window, settings.bw_iters);
  const bool paced = size >= kPacedFrom;
  r.params["window"] = window;
  r.params["transport"] = "mpi";

  // Kept past a wait that gives up (wait_all throws): the peer's transfer may still copy into it.
  TransferMemory<std::vector<char>> buffer(size * static_cast<std::size_t>(ctx.initiator ? 1 : window), kGoOn);
  TransferMemory<int> ack(0);
  std::vector<MPI_Request> rs(static_cast<std::size_t>(window));
  double fastest_GBps = 0, per_byte_s = 0, timed_bytes = 0;
  long long timed_messages = 0;
  std::size_t smallest_message = size;  // in the timed iterations
  rendezvous(ctx);
  CappedLoop loop(warmup_for(iters, settings.warmup) + (paced ? 1 : 0), iters, settings.time_cap_s);
  const auto began = Clock::now();
  Clock::time_point start{};
  for (int it = 0; it < loop.total(); ++it) {
    stop_if_requested();
    bool last = false;
    int sends = window;
    std::size_t bytes = size;
    if (ctx.initiator) {
      last = loop.last(it);
      if (paced) {
        // A tenth of the cap's overrun is allowed to keep the size's own messages.
        const double cap_left = 1.1 * settings.time_cap_s - Seconds(Clock::now() - began).count();
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
    if (it == loop.warmup()) start = Clock::now();
    const auto t0 = Clock::now();
    if (ctx.initiator) {
      for (int w = 0; w < sends; ++w) rs[static_cast<std::size_t>(w)] = post_send(buffer->data(), bytes, ctx, kData);
      std::vector<MPI_Request> sent(rs.begin(), rs.begin() + sends);
      wait_all(sent, ctx, "data receipt");
      std::vector<MPI_Request> a{post_recv(&*ack, sizeof(int), ctx, kAck)};
      wait_all(a, ctx, "acknowledgement");
    } else {
      for (int w = 0; w < window; ++w)
        rs[static_cast<std::size_t>(w)] =
            post_recv(buffer->data() + size * static_cast<std::size_t>(w), size, ctx, kData);
      std::vector<MPI_Request> first{rs[0]};
      wait_all(first, ctx, "data");
      rs[0] = MPI_REQUEST_NULL;
      if (paced) std::memcpy(&sends, buffer->data() + 1, sizeof sends);
      if (sends < 1 || sends > window)
        throw std::runtime_error("the peer announced a window of " + std::to_string(sends));
      cancel_unmatched(rs, sends);
      std::vector<MPI_Request> rest(rs.begin() + 1, rs.begin() + sends);
      wait_all(rest, ctx, "data");
      last = (*buffer)[0] == kLastIteration;
      std::vector<MPI_Request> a{post_send(&*ack, sizeof(int), ctx, kAck)};
      wait_all(a, ctx, "acknowledgement receipt");
    }
    const double took = Seconds(Clock::now() - t0).count();
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
  const double elapsed = Seconds(Clock::now() - start).count();
  r.metrics["bw_avg_GBps"] = Metric::of(gbytes_per_s(timed_bytes, elapsed));
  r.metrics["bw_avg_Gbps"] = Metric::of(gbits_per_s(timed_bytes, elapsed));
  r.metrics["bw_peak_GBps"] = Metric::of(fastest_GBps);
  r.metrics["msg_rate_Mpps"] = Metric::of(mpps(static_cast<double>(timed_messages), elapsed));
  return r;
}

ProbeResult measure_lat(const PairContext& ctx, const NetSettings& settings, std::size_t size) {
  ProbeResult r = pair_result(kMpiLatProbe, ctx, size);
  const int iters = std::max(1, settings.lat_iters);
  r.params["transport"] = "mpi";
  TransferMemory<std::vector<char>> out(size, kGoOn), in(size, 0);
  std::vector<double> samples_us;
  samples_us.reserve(static_cast<std::size_t>(iters));
  std::vector<MPI_Request> rs(2);
  rendezvous(ctx);
  CappedLoop loop(warmup_for(iters, settings.warmup), iters, settings.time_cap_s);
  for (int it = 0; it < loop.total(); ++it) {
    stop_if_requested();
    if (ctx.initiator) {
      const bool last = loop.last(it);
      (*out)[0] = last ? kLastIteration : kGoOn;
      const auto t0 = Clock::now();
      rs[0] = post_recv(in->data(), size, ctx, kPong);
      rs[1] = post_send(out->data(), size, ctx, kPing);
      wait_all(rs, ctx, "pong");
      if (loop.timed(it)) samples_us.push_back(Seconds(Clock::now() - t0).count() * 1e6 / 2);
      if (last) break;
    } else {
      std::vector<MPI_Request> ping{post_recv(in->data(), size, ctx, kPing)};
      wait_all(ping, ctx, "ping");
      std::vector<MPI_Request> pong{post_send(out->data(), size, ctx, kPong)};
      wait_all(pong, ctx, "pong receipt");
      if ((*in)[0] == kLastIteration) break;
    }
  }
  loop.describe(r.params);
  if (ctx.initiator) r.metrics["lat_us"] = Metric::of(summarize_latency(std::move(samples_us)));
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

int effective_window(std::size_t size, int requested) {
  constexpr std::size_t kReceiveBudget = 64u << 20;
  const std::size_t fits = std::max<std::size_t>(1, kReceiveBudget / std::max<std::size_t>(size, 1));
  return static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(1, requested)), fits));
}

std::vector<ProbeResult> MpiTransport::bandwidth(const PairContext& ctx, const NetSettings& settings) {
  return each_size(ctx, settings.bw_sizes, kMpiBwProbe,
                   [&](std::size_t size) { return measure_bw(ctx, settings, size); });
}

std::vector<ProbeResult> MpiTransport::latency(const PairContext& ctx, const NetSettings& settings) {
  return each_size(ctx, settings.lat_sizes, kMpiLatProbe,
                   [&](std::size_t size) { return measure_lat(ctx, settings, size); });
}

}  // namespace ibgpu
