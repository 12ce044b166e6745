#pragma once
// Bandwidth and latency over MPI point-to-point, the OSU way, so the host
// network is measured where no RDMA device exists (and MPI's own path is
// measured where one does).
#include "probes/net/pair_probe.h"

namespace ibgpu {

class MpiTransport final : public PairTransport {
 public:
  std::string name() const override { return "mpi"; }
  // net.mpi.bw: a window of non-blocking sends into one receive buffer, then a 4-byte ack, per
  // iteration.
  std::vector<ProbeResult> bandwidth(const PairContext& ctx, const NetSettings& settings) override;
  // net.mpi.lat: ping-pong; one sample = round trip / 2.
  std::vector<ProbeResult> latency(const PairContext& ctx, const NetSettings& settings) override;
};

// Where the messages of a bandwidth window land (params.recv_layout): "one_buffer", every
// message of the window into the same receive buffer, as osu_bw receives them. (A slot per
// message reads far less at large sizes on one host: 64 x 1 MiB no longer fits the cache.)
inline constexpr const char* kRecvLayout = "one_buffer";

}  // namespace ibgpu
