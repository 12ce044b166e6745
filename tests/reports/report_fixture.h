#pragma once
// One fixed report that exercises every part of the result model, for the
// reporters' golden tests and the schema test. Header-only: the test build
// globs only *_test.cpp files.
//
// Two hosts: node1 (ranks 0,1) with two GPUs and two HCAs, one of whose ports
// is down; node2 (rank 2) lost during the gather, so only its name and ranks
// are known. Probes cover every status, metrics a plain value, a sample
// summary and a missing (null) value. Verdicts cover every entity kind and
// state, reasons with and without value/threshold/metric; the summary's
// Kubernetes map a degraded and a drained node; one work order (check --cabling).
#include "core/inventory.h"
#include "core/report.h"
#include "scheduler/kubernetes.h"

namespace ibgpu::testing {

inline Report sample_report() {
  Report r;
  r.tool = ToolInfo{"ibgpu", "0.1.0", "0123456789ab"};

  r.run.id = "5eed5eed5eed5eed";
  r.run.started = "2026-01-02T03:04:05Z";
  r.run.finished = "2026-01-02T03:04:35Z";
  r.run.command = {"ibgpu", "check", "--profile", "hgx-h100-ndr", "--json", "out.json"};
  r.run.profile = {{"name", "hgx-h100-ndr"},
                   {"expect_gpus", 2},
                   {"expect_active_ports", 2},
                   {"min_bw_GBps", 40.0},
                   {"good_bw_GBps", 45.5}};
  r.run.budget_s = 600.0;
  r.run.ranks = 3;
  r.run.notes = {"rank 2 on host node2 sent no results within 60 s (dead, hung or stopped)"};

  HostInventory node1;
  node1.name = "node1";
  node1.ranks = {0, 1};
  node1.gpus = {
      GpuInfo{0, "NVIDIA H200", "GPU-00000000-1111-2222-3333-444444444444", "00000000:17:00.0", 139.8, ""},
      GpuInfo{1, "NVIDIA H200", "GPU-55555555-6666-7777-8888-999999999999", "00000000:2A:00.0", std::nullopt, ""}};
  Hca mlx5_0;
  mlx5_0.name = "mlx5_0";
  mlx5_0.node_guid = "b83f:d203:00a1:b2c4";
  mlx5_0.fw_ver = "28.39.1002";
  mlx5_0.board_id = "MT_0000000838";
  mlx5_0.hca_type = "MT4129";
  mlx5_0.pci_address = "0000:18:00.0";
  mlx5_0.numa_node = 0;
  IbPort up;
  up.port = 1;
  up.state = CodedState{4, "ACTIVE"};
  up.phys_state = CodedState{5, "LinkUp"};
  up.rate_text = "400 Gb/sec (4X NDR)";
  up.rate = LinkRate{400, 4, "NDR"};
  up.link_layer = "InfiniBand";
  up.lid = "0x12";
  up.counters = {{"port_rcv_errors", 0}, {"port_xmit_data", 123456789012}, {"symbol_error", 3}};
  mlx5_0.ports = {up};
  // A port whose cable is out: no rate, no LID, and an HCA whose NUMA node
  // and board id the kernel did not say.
  Hca mlx5_1;
  mlx5_1.name = "mlx5_1";
  mlx5_1.node_guid = "b83f:d203:00a1:b2c5";
  mlx5_1.fw_ver = "28.39.1002";
  mlx5_1.hca_type = "MT4129";
  mlx5_1.pci_address = "0000:2b:00.0";
  IbPort down;
  down.port = 1;
  down.state = CodedState{1, "DOWN"};
  down.phys_state = CodedState{3, "Disabled"};
  down.link_layer = "InfiniBand";
  mlx5_1.ports = {down};
  node1.hcas = {mlx5_0, mlx5_1};
  // GPU0 shares a PCIe switch with mlx5_0; GPU1 could not be placed.
  node1.topology = {GpuHcaAffinity{0, "0000:17:00.0", 0, "mlx5_0", "0000:18:00.0", PciProximity::same_switch},
                    GpuHcaAffinity{1, "0000:2a:00.0", std::nullopt, "", "", std::nullopt}};
  node1.cpu = CpuInfo{"Intel(R) Xeon(R) Platinum 8480+", 224, 2};
  node1.versions = {{"rdma_core", "50.0"},          {"mpi", "Open MPI v4.1.4"}, {"nccl", "2.28.3"},
                    {"nvidia_driver", "580.65.06"}, {"cuda_driver", "13.0"},    {"kernel", "6.1.0-18-amd64"}};
  node1.env = {{"NCCL_DEBUG", "WARN"}, {"NCCL_IB_HCA", "mlx5_0,mlx5_1"}};

  HostInventory node2;  // its only rank was lost: name and ranks only
  node2.name = "node2";
  node2.ranks = {2};
  r.hosts = {node1, node2};

  ProbeResult gpus;
  gpus.id = "inventory.gpu";
  gpus.scope = Scope{{"node1"}, {0}, {"GPU0", "GPU1"}};
  gpus.metrics = {{"gpu_count", Metric::of(2)}};

  ProbeResult rdma;
  rdma.id = "inventory.rdma";
  rdma.scope = Scope{{"node1"}, {0}, {"mlx5_0", "mlx5_1"}};
  rdma.metrics = {{"active_port_count", Metric::of(1)}, {"port_count", Metric::of(2)}};

  // Pair probes, one result per message size; a pair inside one host names it twice.
  ProbeResult lat;
  lat.id = "net.mpi.lat";
  lat.scope = Scope{{"node1", "node1"}, {0, 1}, {}};
  lat.params = {{"size_B", 8}, {"iters", 1000}, {"warmup", 100}, {"transport", "mpi"}};
  lat.metrics = {{"lat_us", Metric::of(Stats{1000, 1.75, 2.125, 2.5, 3.25, 7.5, 12.0, 2.2, 0.375})}};

  ProbeResult bw;
  bw.id = "net.mpi.bw";
  bw.scope = Scope{{"node1", "node1"}, {0, 1}, {}};
  bw.params = {{"size_B", 1048576}, {"window", 64}, {"iters", 200}, {"warmup", 20}, {"transport", "mpi"}};
  bw.metrics = {{"bw_avg_GBps", Metric::of(11.5)},
                {"bw_avg_Gbps", Metric::of(92.0)},
                {"bw_peak_GBps", Metric::of(12.25)},
                {"msg_rate_Mpps", Metric::missing()}};

  ProbeResult write_bw;
  write_bw.id = "net.verbs.write_bw";
  write_bw.status = ProbeStatus::timeout;
  write_bw.scope = Scope{{"node1", "node2"}, {0, 2}, {"mlx5_0", "mlx5_0"}};
  write_bw.params = {{"size_B", 65536}, {"transport", "verbs"}, {"iters", 5000},
                     {"warmup", 500},   {"tx_depth", 128},      {"signal_every", 100}};
  write_bw.metrics = {{"bw_avg_GBps", Metric::missing()}};
  write_bw.error = "peer rank 2 on node2 did not complete the exchange within 60 s";
  write_bw.time = "2026-01-02T03:04:30Z";

  ProbeResult nccl = skipped("collective.nccl.all_reduce", Scope{{"node1"}, {0, 1}, {}}, "libnccl.so.2 not found");

  ProbeResult memory_bw;
  memory_bw.id = "gpu.memory_bw";
  memory_bw.status = ProbeStatus::error;
  memory_bw.scope = Scope{{"node1"}, {1}, {"GPU1"}};
  memory_bw.params = {{"size_bytes", 1073741824}};
  memory_bw.error = "cudaMalloc (GPU1): out of memory";

  ProbeResult allreduce;
  allreduce.id = "collective.mpi.all_reduce";
  allreduce.status = ProbeStatus::failed;
  allreduce.scope = Scope{{"node1"}, {0, 1}, {}};
  allreduce.params = {{"count", 1048576}, {"type", "float"}};
  allreduce.metrics = {{"busbw_GBps", Metric::of(Stats{20, 9.5, 10.25, 10.5, 10.75, 10.75, 10.75, 10.125, 0.25})},
                       {"wrong_elements", Metric::of(2)}};
  allreduce.error = "2 wrong elements on rank 1";

  ProbeResult gather;
  gather.id = "cluster.gather";
  gather.status = ProbeStatus::timeout;
  gather.scope = Scope{{"node2"}, {2}, {}};
  gather.error = r.run.notes.front();

  // Local checks: NVML values (one unsupported, so null) and a port's counter deltas over the run.
  ProbeResult nvml;
  nvml.id = "gpu.nvml.health";
  nvml.scope = Scope{{"node1"}, {}, {"gpu0"}};
  nvml.params = {{"gpu_index", 0}, {"pci_bus_id", "00000000:17:00.0"}};
  nvml.metrics = {{"temp_C", Metric::of(41)},
                  {"ecc_uncorrected_volatile", Metric::of(0)},
                  {"ecc_uncorrected_aggregate", Metric::of(0)},
                  {"pcie_gen", Metric::of(5)},
                  {"pcie_gen_max", Metric::of(5)},
                  {"pcie_width", Metric::of(16)},
                  {"pcie_width_max", Metric::of(16)},
                  {"nvlink_links", Metric::of(18)},
                  {"nvlink_links_up", Metric::of(18)},
                  {"remap_pending", Metric::of(0)},
                  {"remap_failed", Metric::missing()}};
  ProbeResult counters;
  counters.id = "ib.port.counters";
  counters.scope = Scope{{"node1"}, {}, {"mlx5_0:1"}};
  counters.params = {{"interval_s", 30.0}};
  counters.metrics = {{"symbol_error_delta", Metric::of(3)},
                      {"symbol_error_per_hour", Metric::of(360)},
                      {"link_downed_delta", Metric::of(0)},
                      {"link_downed_per_hour", Metric::of(0)}};

  r.probes = {gpus, rdma, lat, bw, write_bw, nccl, memory_bw, allreduce, gather, nvml, counters};

  r.verdicts = {
      Verdict{Entity::gpu("node1", "gpu0"),
              HealthState::unknown,
              {Reason{ReasonCode::CHECK_SKIPPED, "collective.nccl.all_reduce: libnccl.so.2 not found",
                      "collective.nccl.all_reduce", std::nullopt, std::nullopt}},
              std::nullopt},
      Verdict{Entity::gpu("node1", "gpu1"),
              HealthState::failed,
              {Reason{ReasonCode::PROBE_ERROR, "gpu.memory_bw: cudaMalloc (GPU1): out of memory", "gpu.memory_bw",
                      std::nullopt, std::nullopt}},
              std::nullopt},
      Verdict{Entity::port("node1", "mlx5_0:1"), HealthState::healthy, {}, std::nullopt},
      Verdict{Entity::port("node1", "mlx5_1:1"),
              HealthState::failed,
              {Reason{ReasonCode::IB_PORT_DOWN, "state DOWN, physical state Disabled", "state", 1.0, 4.0}},
              std::nullopt},
      Verdict{Entity::link("node1", "node2"),
              HealthState::failed,
              {[&] {  // a reason that cites its result (health/thresholds.h cite)
                Reason cites{ReasonCode::PROBE_TIMEOUT, "net.verbs.write_bw: " + *write_bw.error, "net.verbs.write_bw",
                             std::nullopt, std::nullopt};
                cites.probe = write_bw.id;
                cites.size_B = 65536;
                cites.port = write_bw.scope.devices[0];
                cites.peer_port = write_bw.scope.devices[1];
                return cites;
              }()},
              std::nullopt},
      Verdict{Entity::node("node1"),
              HealthState::degraded,
              {Reason{ReasonCode::IB_PORTS_MISSING, "1 of 2 RDMA ports active", "active_port_count", 1.0, 2.0},
               Reason{ReasonCode::GPUS_UNHEALTHY, "GPU1 failed its checks; usable GPUs: GPU0", "", 1.0, std::nullopt}},
              Action::admit_degraded,
              {"gpu0", "mlx5_0:1"},
              {"gpu1", "mlx5_1:1"}},
      Verdict{Entity::node("node2"),
              HealthState::failed,
              {Reason{ReasonCode::PROBE_TIMEOUT, "cluster.gather: " + *gather.error, "cluster.gather", std::nullopt,
                      std::nullopt}},
              Action::drain,
              {},
              {}},
  };

  r.summary.state = HealthState::failed;
  r.summary.admit_degraded = {"node1"};
  r.summary.drain = {"node2"};
  r.summary.exit_code = exit_code_for(HealthState::failed);
  r.summary.kubernetes = kubernetes_map(r.verdicts);
  // check --cabling: the work order for node1's port that is down (health/work_orders.h).
  WorkOrder order;
  order.cable = "node1 mlx5_1:1 <-> leaf1 port 7";
  order.port = "node1 mlx5_1:1";
  order.state = HealthState::failed;
  order.entities = {Entity::port("node1", "mlx5_1:1")};
  order.shortfall = "state DOWN, physical state Disabled";
  order.counters = {{"link_downed", 1}, {"symbol_error", 12}};
  order.unread = {"leaf1 port 7: a switch's counters are not read by ibgpu (perfquery -G 0xb83fd203004d5e40 7)"};
  order.next = "reseat both ends; if the link drops again, replace the cable, then the transceiver";
  r.work_orders.push_back(order);
  return r;
}

}  // namespace ibgpu::testing
