#pragma once
// The measurement loops on a connected endpoint, perftest's methodology
// (REFERENCE.md). They throw WaitExpired (-> timeout), PeerFailed or
// CallError (-> error); the transport turns that into results.
#include <cstddef>
#include <string>

#include "probes/net/pair_probe.h"
#include "probes/net/verbs/endpoint.h"
#include "probes/net/verbs/pair_link.h"

namespace ibgpu::verbs {

// Tag offsets inside the pair's [ctx.tag, ctx.tag + 15]. Bandwidth and
// latency keep apart so both may run in one pair meeting.
enum TagOffset : int {
  kBwConnect = 0,
  kBwReady = 1,
  kBwDone = 2,
  kBwAbort = 3,
  kLatConnect = 8,
  kLatReady = 9,
  kLatSync = 10,
  kLatEnd = 11,
  kLatAbort = 12,
};

// Receive work requests carry this bit in wr_id; sends never do.
inline constexpr std::uint64_t kRecvBit = std::uint64_t{1} << 63;

// Why `size` cannot run on this connection, or empty.
std::string size_problem(const Endpoint& ep, std::size_t size, bool cpu_visible);

// Initiator only: RDMA writes into the peer's receive region, tx_depth in
// flight, CQ moderation, timed from the first post to the last completion.
ProbeResult measure_write_bw(Endpoint& ep, const PairContext& ctx, const NetSettings& settings, std::size_t size,
                             AbortWatch& abort);

// Both sides: write ping-pong (each side spins on the last byte of its
// receive region) or send/recv ping-pong (receives pre-posted). The
// initiator's result carries lat_us; the responder's only its status.
ProbeResult measure_write_lat(Endpoint& ep, const PairContext& ctx, const NetSettings& settings, std::size_t size,
                              AbortWatch& abort);
// `problem`, when not empty, is a local failure to announce at the start instead of running.
ProbeResult measure_send_lat(Endpoint& ep, const PairContext& ctx, const NetSettings& settings, std::size_t size,
                             AbortWatch& abort, const std::string& problem = {});

}  // namespace ibgpu::verbs
