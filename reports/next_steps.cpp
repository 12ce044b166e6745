#include "reports/next_steps.h"

#include <array>
#include <utility>

namespace ibgpu {

namespace {

// Condensed from docs/reason-codes.md ("what to do"); at most 64 characters each,
// so that a summary line with a node name and a code stays within 120 columns.
constexpr std::array<std::pair<std::string_view, std::string_view>, 55> kNextSteps{{
    {"GPU_MISSING", "nvidia-smi -L, lspci -d 10de:; power-cycle; RMA if still gone"},
    {"GPUS_UNHEALTHY", "act on the codes of the node's GPU verdicts"},
    {"GPU_XID", "look the XID up (dmesg | grep -i xid); reset or reboot"},
    {"GPU_LOST", "GPU fell off the bus: drain, power-cycle; reseat or RMA"},
    {"GPU_NOT_ON_PCI", "run on the host's own /sys; compare nvidia-smi with lspci"},
    {"GPU_ECC_UNCORRECTABLE", "drain; reset the GPU or reboot, re-check; repeats: RMA"},
    {"GPU_ECC_DISABLED", "nvidia-smi -e 1 -i N, then reset the GPU or reboot"},
    {"GPU_REMAP_FAILED", "no spare rows left: RMA the GPU"},
    {"GPU_REMAP_PENDING", "reset the GPU (nvidia-smi -r -i N) or reboot, re-check"},
    {"GPU_RETIRED_PAGES_PENDING", "reboot or reset the GPU, re-check; many pages: RMA"},
    {"GPU_NVLINK_DOWN", "nvidia-smi nvlink -s; check fabric manager; reset or reboot"},
    {"GPU_PCIE_DOWNTRAINED", "lspci -vv (LnkSta vs LnkCap); reseat GPU, riser or cable"},
    {"GPU_THERMAL_SLOWDOWN", "check fans, airflow, inlet temperature, BMC sensor log"},
    {"GPU_POWER_SLOWDOWN", "check power supplies, BMC log, power capping"},
    {"GPU_TEMP_HIGH", "cooling first: fans, airflow, inlet temperature"},
    {"GPU_PERSISTENCE_OFF", "enable nvidia-persistenced (nvidia-smi -pm 1)"},
    {"GPU_COMPUTE_WRONG", "drain; reset or reboot, re-check; wrong again: RMA"},
    {"GPU_COPY_BW_LOW", "PCIe link width and speed (lspci -vv), BIOS, NUMA placement"},
    {"GPU_COPY_BW_OUTLIER", "PCIe link (lspci -vv), BIOS, NUMA; compare with a healthy node"},
    {"GPU_MEM_BW_LOW", "clocks or power limit throttled? dcgmi diag -r 3; RMA"},
    {"GPU_MEM_BW_OUTLIER", "clocks or power limit throttled? dcgmi diag -r 3; RMA"},
    {"IB_PORT_DOWN", "ibstat; reseat or replace cable, check the switch port and SM"},
    {"IB_PORTS_MISSING", "see the node's IB_PORT_DOWN ports; ibv_devices, lspci, fw"},
    {"IB_PORT_RATE_LOW", "ibstat, iblinkinfo; reseat or replace cable or transceiver"},
    {"IB_PORT_WIDTH_LOW", "a lane is lost: clean, reseat or replace cable; mlxlink"},
    {"HCA_PCIE_DOWNTRAINED", "lspci -vv (LnkSta vs LnkCap); reseat the card or riser"},
    {"IB_PORT_SPEED_BELOW_CAPABILITY", "cable, transceiver, switch speed (mlxlink, iblinkinfo)"},
    {"IB_LINK_DOWNED", "link dropped: reseat or replace cable; switch port's log"},
    {"IB_SYMBOL_ERRORS", "perfquery -x, mlxlink -c; clean or replace cable"},
    {"IB_LINK_ERROR_RECOVERY", "link keeps retraining: replace cable or transceiver"},
    {"IB_RCV_ERRORS", "cable, transceiver or the sender: perfquery -x both ends"},
    {"IB_LINK_INTEGRITY_ERRORS", "physical layer: clean, reseat or replace cable"},
    {"IB_BUFFER_OVERRUN", "physical errors or VL/MTU mismatch: check both ends"},
    {"IB_LINK_FLAP", "dmesg for link down; reseat or replace cable; clears at reboot"},
    {"IB_LINK_BW_LOW", "rail: ibstat, cable; node: PCIe, NUMA, peermem; link: path"},
    {"IB_LINK_BW_OUTLIER", "rail: ibstat, cable; node: PCIe, NUMA, peermem; link: path"},
    {"NET_BW_LOW", "is MPI on the RDMA path? (ucx_info -d), then as IB_LINK_BW_LOW"},
    {"NET_BW_OUTLIER", "is MPI on the RDMA path? (ucx_info -d), then as IB_LINK_BW_LOW"},
    {"LAT_HIGH", "switch hops (ibtracert), CPU power saving, a busy host"},
    {"LAT_OUTLIER", "switch hops (ibtracert), CPU power saving, a busy host"},
    {"PAIR_BAD", "reseat or replace the rail's cable; check switch ports on path"},
    {"ALLREDUCE_BUSBW_LOW", "one node: NVLink, fabric manager; across: rails, NCCL_DEBUG"},
    {"ALLREDUCE_BUSBW_OUTLIER", "one node: NVLink, fabric manager; across: rails, NCCL_DEBUG"},
    {"ALLREDUCE_WRONG_DATA", "data corruption: drain; reset or reboot; dcgmi diag -r 3"},
    {"CHECK_SKIPPED", "fix what the message names (driver, NCCL, time), re-check"},
    {"PROBE_TIMEOUT", "host up? (ssh, scontrol show node); hung GPU/driver: reboot"},
    {"PROBE_ERROR", "read the call in the message: driver, peermem, ibv_devinfo"},
    {"PROBE_FAILED", "read the message; treat as the probe's own failure"},
    {"NOT_JUDGED", "not a finding; for a verdict: 3+ hosts together, or a floor"},
    {"CHECK_NOT_RUN", "not a finding; for a verdict: a longer --budget, re-check"},
    {"BURN_IN_FLAKY", "intermittent: drain, act on the codes after it, burn in again"},
    {"BURN_IN_DRIFT", "steady decline: check cooling, clocks, port errors; run again"},
    {"FABRIC_SWITCH_BAD", "network team: the leaf switch (ibswitches, port counters)"},
    {"FABRIC_UPLINK_BAD", "network team: the leaf's uplinks to the spine"},
    {"FABRIC_PATH_BAD", "network team: the path between the groups; add --topology"},
}};

}  // namespace

std::string_view next_step(std::string_view code) {
  for (const auto& [known, step] : kNextSteps)
    if (known == code) return step;
  return "see reason-codes.md in ibgpu's documentation";
}

std::string actions_taken(const Report& r) {
  if (r.run.interrupted) return "The run was interrupted: no admission action was run (re-run it).";
  switch (r.run.actions) {
    case AdmissionActions::run:
      return "Admission actions run once this report is written; what they did is in the run's notes.";
    case AdmissionActions::dry_run:
      return "Dry run: the admission commands were printed on stderr, not run; nothing was drained.";
    case AdmissionActions::none:
      break;
  }
  return "No admission action was requested, so nothing was drained (--slurm-drain or --drain-cmd apply it).";
}

std::vector<std::string_view> codes_with_next_step() {
  std::vector<std::string_view> codes;
  for (const auto& entry : kNextSteps) codes.push_back(entry.first);
  return codes;
}

}  // namespace ibgpu
