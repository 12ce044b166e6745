#pragma once
// Bandwidth and latency over ibverbs RC queue pairs, perftest's methodology
// with MPI for the out-of-band exchange and a deadline on every wait.
//
//   net.verbs.write_bw   RDMA write bandwidth, one result per settings.bw_sizes
//   net.verbs.write_lat  RDMA write ping-pong, one per settings.lat_sizes
//   net.verbs.send_lat   send/recv ping-pong, one per settings.lat_sizes
//
//   net.verbs.rail_bytes each end of a bandwidth pair: what its own port counted of the bytes
//                        written (probes/ib/traffic.h); not where both ends share one HCA
//
// Results follow the MPI transport: the initiator reports measurements; the
// responder reports only what broke on its side, and its port's bytes. A host without a usable
// device gives `skipped` (see verbs_unavailable_reason); an unknown device,
// port or GID index throws UsageError after telling the peer.
#include "probes/net/pair_probe.h"
#include "probes/net/verbs/device_select.h"
#include "probes/sysfs.h"

namespace ibgpu {

class VerbsTransport final : public PairTransport {
 public:
  // `sysfs`: where the ports' byte counters are read (--sysfs-root).
  explicit VerbsTransport(Sysfs sysfs = Sysfs()) : sysfs_(std::move(sysfs)) {}
  std::string name() const override { return "verbs"; }
  std::vector<ProbeResult> bandwidth(const PairContext& ctx, const NetSettings& settings) override;
  // Latency buffers are always host memory: each side polls its receive
  // buffer from the CPU. settings.mem applies to bandwidth.
  std::vector<ProbeResult> latency(const PairContext& ctx, const NetSettings& settings) override;

 private:
  Sysfs sysfs_;
};

}  // namespace ibgpu
