#pragma once
// Bandwidth and latency over MPI point-to-point, the OSU way, so the host
// network is measured where no RDMA device exists (and MPI's own path is
// measured where one does).
#include "probes/net/pair_probe.h"

namespace ibgpu {

class MpiTransport final : public PairTransport {
 public:
  std::string name() const override { return "mpi"; }
  // net.mpi.bw: a window of non-blocking sends, then a 4-byte ack, per iteration.
  std::vector<ProbeResult> bandwidth(const PairContext& ctx, const NetSettings& settings) override;
  // net.mpi.lat: ping-pong; one sample = round trip / 2.
  std::vector<ProbeResult> latency(const PairContext& ctx, const NetSettings& settings) override;
};

// Messages in flight per iteration: the requested window, fewer for large
// messages so the receive slots stay within 64 MiB and never overlap.
int effective_window(std::size_t size, int requested);

}  // namespace ibgpu
