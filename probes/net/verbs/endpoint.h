#pragma once
// One side of an RC connection: the device port, memory registered with it,
// a CQ and a QP, brought to RTS against a peer. Members are declared in
// dependency order so destruction tears down QP, CQ, MR, memory, PD, context.
//
// The registered buffer is two regions of `region_bytes`: the receive region
// first (the peer writes there; its address is what we advertise), then the
// send region (our source for writes and sends).
#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "probes/cuda/driver.h"
#include "probes/net/buffer_memory.h"
#include "probes/net/verbs/connection.h"
#include "probes/net/verbs/gid.h"
#include "probes/net/verbs/qp_attributes.h"
#include "probes/net/verbs/verbs_check.h"
#include "probes/net/verbs/verbs_handles.h"

namespace ibgpu::verbs {

struct EndpointOptions {
  std::string device;  // "mlx5_0:1", "mlx5_0", or empty for the first ACTIVE port
  int gid_index = -1;
  BufferMemory mem = BufferMemory::host;
  std::size_t region_bytes = 4096;
  int send_depth = 128;
  int recv_depth = 0;
  std::uint32_t max_inline = 0;  // asked for; the provider may grant less (or nothing)
};

// A device port opened and queried, with the GID its packets would carry.
struct OpenPort {
  std::string name;  // "rxe0:1"
  std::uint8_t port = 1;
  ibv_port_attr attr{};
  std::optional<GidEntry> gid;  // set when packets carry a GRH
  DeviceList devices;
  Context context;
};
// Throws UsageError (unknown device, port or GID index), VerbsUnavailable,
// CallError or std::runtime_error (port not ACTIVE). Also the preflight check
// of --hca and --gid-index, before anything runs.
OpenPort open_port(const std::string& device_spec, int gid_index);

class Endpoint {
 public:
  // Throws UsageError (unknown device, port or GID index), VerbsUnavailable or
  // GpuUnavailable (-> skipped), CallError or std::runtime_error (-> error).
  explicit Endpoint(const EndpointOptions& options);

  ConnectionInfo local_info() const;
  const std::string& name() const { return name_; }  // the port, "rxe0:1"
  // INIT -> RTR -> RTS against the peer.
  void connect(const ConnectionInfo& peer);

  // Write `length` bytes from send region offset `local` to the peer's receive region at `remote`.
  void post_write(std::size_t local, std::size_t remote, std::size_t length, std::uint64_t wr_id, bool signaled,
                  bool inline_data);
  void post_send(std::size_t length, std::uint64_t wr_id, bool inline_data);  // always signalled
  void post_recv(std::uint64_t wr_id);                                        // the whole receive region
  int poll(ibv_wc* completions, int max) { return verbs::poll_cq(cq_.get(), max, completions); }

  // CPU-visible regions; nullptr when the buffer is GPU memory.
  std::uint8_t* receive_region() const;
  std::uint8_t* send_region() const;
  std::size_t region_bytes() const { return region_bytes_; }
  const ConnectionInfo& peer() const { return peer_; }
  int send_depth() const { return send_depth_; }
  std::uint32_t max_inline() const { return max_inline_; }
  std::size_t max_message() const { return port_attr_.max_msg_sz; }
  // device, link_layer, gid, mtu, mem, mr_path, ...: recorded in every result's params.
  nlohmann::json describe() const;

 private:
  void allocate_memory(const EndpointOptions& options);
  void register_gpu_memory();
  void create_qp(const EndpointOptions& options, int recv_depth);
  std::uint64_t base_address() const;

  std::string name_;  // "rxe0:1"
  std::uint8_t port_ = 1;
  ibv_port_attr port_attr_{};
  std::uint64_t node_guid_ = 0;
  std::optional<GidEntry> gid_;            // set when packets carry a GRH
  BufferMemory mem_ = BufferMemory::host;  // where the buffers are: host or gpu, never automatic
  std::string mr_path_ = "host", gpu_note_;
  std::size_t region_bytes_ = 0;
  int send_depth_ = 0;
  std::uint32_t max_inline_ = 0;
  std::uint32_t psn_ = 0;
  ibv_mtu path_mtu_ = IBV_MTU_1024;
  ConnectionInfo peer_;

  DeviceList devices_;
  Context context_;
  ProtectionDomain pd_;
  HostMemory host_;
  std::optional<GpuMemory> gpu_;
  MemoryRegion mr_;
  CompletionQueue cq_;
  QueuePair qp_;
};

}  // namespace ibgpu::verbs
