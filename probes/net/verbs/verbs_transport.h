#pragma once
// Bandwidth and latency over ibverbs RC queue pairs, perftest's methodology
// with MPI for the out-of-band exchange and a deadline on every wait.
//
//   net.verbs.write_bw   RDMA write bandwidth, one result per settings.bw_sizes
//   net.verbs.write_lat  RDMA write ping-pong, one per settings.lat_sizes
//   net.verbs.send_lat   send/recv ping-pong, one per settings.lat_sizes
//
// Results follow the MPI transport: the initiator reports measurements; the
// responder reports only what broke on its side. A host without a usable
// device gives `skipped` (see verbs_unavailable_reason); an unknown device,
// port or GID index throws UsageError after telling the peer.
#include "probes/net/pair_probe.h"
#include "probes/net/verbs/device_select.h"

namespace ibgpu {

class VerbsTransport final : public PairTransport {
 public:
  std::string name() const override { return "verbs"; }
  std::vector<ProbeResult> bandwidth(const PairContext& ctx, const NetSettings& settings) override;
  // Latency buffers are always host memory: each side polls its receive
  // buffer from the CPU. settings.mem applies to bandwidth.
  std::vector<ProbeResult> latency(const PairContext& ctx, const NetSettings& settings) override;
};

}  // namespace ibgpu
