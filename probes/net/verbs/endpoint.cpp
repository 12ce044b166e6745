#include "probes/net/verbs/endpoint.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "core/errors.h"
#include "probes/net/verbs/device_select.h"
#include "probes/net/verbs/gid.h"

namespace ibgpu::verbs {

namespace {

std::uint32_t random_psn() {
  std::random_device entropy;
  return std::uniform_int_distribution<std::uint32_t>(0, 0xffffff)(entropy);
}

void modify(ibv_qp* qp, const QpTransition& t, const char* call) {
  ibv_qp_attr attr = t.attr;  // ibv_modify_qp takes a non-const pointer
  check_rc(ibv_modify_qp(qp, &attr, t.mask), call);
}

}  // namespace

OpenPort open_port(const std::string& device_spec, int gid_index) {
  const DeviceSpec spec = resolve_device(parse_device_spec(device_spec), survey_devices());
  OpenPort p;
  p.name = spec.device + ":" + std::to_string(spec.port);
  p.port = static_cast<std::uint8_t>(spec.port);
  p.devices = DeviceList::get();
  ibv_device* device = p.devices.find(spec.device);
  if (!device) throw std::runtime_error("RDMA device " + spec.device + " disappeared while opening it");
  p.context = open_device(device);
  check_rc(ibv_query_port(p.context.get(), p.port, &p.attr), "ibv_query_port");
  if (p.attr.state != IBV_PORT_ACTIVE)
    throw std::runtime_error("RDMA port " + p.name + " is " + ibv_port_state_str(p.attr.state) + ", not PORT_ACTIVE");
  // RoCE has no LIDs: every packet carries a GRH, so a GID is mandatory there.
  // On InfiniBand the LID routes, and a GRH is used only when asked for.
  if (p.attr.link_layer == IBV_LINK_LAYER_ETHERNET || gid_index >= 0)
    p.gid = select_gid(read_gid_table(p.context.get(), p.port, p.attr.gid_tbl_len), gid_index, p.name);
  return p;
}

Endpoint::Endpoint(const EndpointOptions& options) {
  OpenPort opened = open_port(options.device, options.gid_index);
  name_ = std::move(opened.name);
  port_ = opened.port;
  port_attr_ = opened.attr;
  gid_ = opened.gid;
  devices_ = std::move(opened.devices);
  context_ = std::move(opened.context);
  path_mtu_ = port_attr_.active_mtu;

  ibv_device_attr attr{};
  check_rc(ibv_query_device(context_.get(), &attr), "ibv_query_device");
  node_guid_ = attr.node_guid;
  send_depth_ = std::clamp(options.send_depth, 1, std::max(1, attr.max_qp_wr));
  const int recv_depth = std::clamp(options.recv_depth, 1, std::max(1, attr.max_qp_wr));
  region_bytes_ = round_up(std::max<std::size_t>(options.region_bytes, 1), page_size());

  pd_ = alloc_pd(context_.get());
  allocate_memory(options);
  cq_ = create_cq(context_.get(), std::min(send_depth_ + recv_depth + 1, std::max(1, attr.max_cqe)));
  create_qp(options, recv_depth);
  modify(qp_.get(), init_transition(port_), "ibv_modify_qp(INIT)");
  psn_ = random_psn();
}

void Endpoint::allocate_memory(const EndpointOptions& options) {
  const std::size_t total = 2 * region_bytes_;
  if (options.mem != BufferMemory::host) {
    try {
      gpu_.emplace(total);
      mem_ = BufferMemory::gpu;
      register_gpu_memory();
      return;
    } catch (const std::exception& e) {
      // "auto" means GPU memory where it works; the reason it did not is kept in params.
      if (options.mem == BufferMemory::gpu) throw;
      gpu_note_ = e.what();
      mr_.reset();
      gpu_.reset();
      mem_ = BufferMemory::host;
    }
  }
  host_ = HostMemory(total);
  std::memset(host_.data() + region_bytes_, 0x5a, region_bytes_);  // any non-zero source pattern
  mr_ = reg_mr(pd_.get(), host_.data(), host_.bytes(), kQpAccess);
  mr_path_ = "host";
}

void Endpoint::register_gpu_memory() {
  // dma-buf first (CUDA >= 11.7, open kernel modules, rdma-core >= 34), then the
  // legacy path: plain ibv_reg_mr on device memory, which only nvidia-peermem makes work.
  std::string dmabuf_why;
  const int fd = gpu_->dmabuf_fd(dmabuf_why);
  if (fd >= 0) {
    errno = 0;
    ibv_mr* mr = ibv_reg_dmabuf_mr(pd_.get(), 0, gpu_->bytes(), gpu_->address(), fd, kQpAccess);
    if (mr) {
      mr_ = MemoryRegion(mr);
      mr_path_ = "dmabuf";
      return;
    }
    dmabuf_why = "ibv_reg_dmabuf_mr: " + errno_text(errno) + " (HCA driver or kernel without dma-buf support?)";
  }
  errno = 0;
  ibv_mr* mr = ibv_reg_mr(pd_.get(), reinterpret_cast<void*>(gpu_->address()), gpu_->bytes(), kQpAccess);
  if (!mr)
    throw CallError("ibv_reg_mr", "could not register GPU memory: dma-buf path: " + dmabuf_why +
                                      "; peer-memory path: " + errno_text(errno) + " (is nvidia-peermem loaded?)");
  mr_ = MemoryRegion(mr);
  mr_path_ = "peermem";
  gpu_note_ = dmabuf_why;
}

void Endpoint::create_qp(const EndpointOptions& options, int recv_depth) {
  // Providers cap inline data differently (mlx5 ~900 B, rxe less); ask for
  // what latency wants, then settle for less rather than fail.
  std::vector<std::uint32_t> attempts{options.max_inline};
  if (options.max_inline > 64) attempts.push_back(64);
  if (options.max_inline > 0) attempts.push_back(0);
  int last_errno = 0;
  for (const std::uint32_t inline_bytes : attempts) {
    ibv_qp_init_attr init{};
    init.send_cq = cq_.get();
    init.recv_cq = cq_.get();
    init.qp_type = IBV_QPT_RC;
    init.sq_sig_all = 0;
    init.cap.max_send_wr = static_cast<std::uint32_t>(send_depth_);
    init.cap.max_recv_wr = static_cast<std::uint32_t>(recv_depth);
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    init.cap.max_inline_data = inline_bytes;
    errno = 0;
    if (ibv_qp* qp = ibv_create_qp(pd_.get(), &init)) {
      qp_ = QueuePair(qp);
      // The provider may report more than asked; rely only on what was asked and granted.
      max_inline_ = std::min(inline_bytes, init.cap.max_inline_data);
      return;
    }
    last_errno = errno;
  }
  throw_errno("ibv_create_qp", last_errno);
}

std::uint64_t Endpoint::base_address() const {
  return gpu_ ? gpu_->address() : reinterpret_cast<std::uint64_t>(host_.data());
}

ConnectionInfo Endpoint::local_info() const {
  ConnectionInfo info;
  info.lid = port_attr_.lid;
  info.qpn = qp_->qp_num;
  info.psn = psn_;
  info.rkey = mr_->rkey;
  info.addr = base_address();
  info.region_bytes = region_bytes_;
  if (gid_) {
    info.gid = gid_->gid;
    info.gid_index = gid_->index;
    info.gid_type = gid_->type;
  }
  info.mtu = static_cast<std::uint8_t>(port_attr_.active_mtu);
  info.link_layer = port_attr_.link_layer;
  info.node_guid = node_guid_;
  return info;
}

void Endpoint::connect(const ConnectionInfo& peer) {
  if (peer.mtu < IBV_MTU_256 || peer.mtu > IBV_MTU_4096)
    throw std::runtime_error("peer sent an invalid MTU code " + std::to_string(peer.mtu));
  peer_ = peer;
  PathInfo path;
  path.port = port_;
  path.use_grh = gid_.has_value();
  path.gid_index = gid_ ? gid_->index : -1;
  path.mtu = path_mtu_ = common_mtu(port_attr_.active_mtu, static_cast<ibv_mtu>(peer.mtu));
  modify(qp_.get(), rtr_transition(peer, path), "ibv_modify_qp(RTR)");
  modify(qp_.get(), rts_transition(psn_), "ibv_modify_qp(RTS)");
}

void Endpoint::post_write(std::size_t local, std::size_t remote, std::size_t length, std::uint64_t wr_id, bool signaled,
                          bool inline_data) {
  ibv_sge sge{};
  sge.addr = base_address() + region_bytes_ + local;
  sge.length = static_cast<std::uint32_t>(length);
  sge.lkey = mr_->lkey;
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = (signaled ? unsigned{IBV_SEND_SIGNALED} : 0u) | (inline_data ? unsigned{IBV_SEND_INLINE} : 0u);
  wr.wr.rdma.remote_addr = peer_.addr + remote;
  wr.wr.rdma.rkey = peer_.rkey;
  ibv_send_wr* bad = nullptr;
  check_rc(ibv_post_send(qp_.get(), &wr, &bad), "ibv_post_send");
}

void Endpoint::post_send(std::size_t length, std::uint64_t wr_id, bool inline_data) {
  ibv_sge sge{};
  sge.addr = base_address() + region_bytes_;
  sge.length = static_cast<std::uint32_t>(length);
  sge.lkey = mr_->lkey;
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = unsigned{IBV_SEND_SIGNALED} | (inline_data ? unsigned{IBV_SEND_INLINE} : 0u);
  ibv_send_wr* bad = nullptr;
  check_rc(ibv_post_send(qp_.get(), &wr, &bad), "ibv_post_send");
}

void Endpoint::post_recv(std::uint64_t wr_id) {
  ibv_sge sge{};
  sge.addr = base_address();
  sge.length = static_cast<std::uint32_t>(std::min<std::size_t>(region_bytes_, port_attr_.max_msg_sz));
  sge.lkey = mr_->lkey;
  ibv_recv_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  check_rc(ibv_post_recv(qp_.get(), &wr, &bad), "ibv_post_recv");
}

std::uint8_t* Endpoint::receive_region() const { return gpu_ ? nullptr : host_.data(); }

std::uint8_t* Endpoint::send_region() const { return gpu_ ? nullptr : host_.data() + region_bytes_; }

nlohmann::json Endpoint::describe() const {
  nlohmann::json d;
  d["device"] = name_;
  d["link_layer"] = port_attr_.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
  d["mtu_B"] = mtu_bytes(path_mtu_);
  d["mem"] = to_string(mem_);
  d["mr_path"] = mr_path_;
  if (gid_) {
    d["gid_index"] = gid_->index;
    d["gid"] = format_gid(gid_->gid);
    d["gid_type"] = to_string(gid_->type);
  }
  if (max_inline_ > 0) d["max_inline_B"] = max_inline_;
  if (!gpu_note_.empty()) d["gpu_note"] = gpu_note_;
  return d;
}

}  // namespace ibgpu::verbs
