#pragma once
// Every reason code the judge writes, one row each: where it lands, the states it gives, when it
// fires, what to do, and the one-line next step of the summaries. The judge emits codes from
// here, reports print them, `ibgpu explain CODE` shows a row, and docs/reason-codes.md's table is
// rendered from it (tests/reports/reason_codes_doc_test.cpp holds the page to the table).
// A new code: an enumerator below and its row in core/reason_codes.cpp, in the same order.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string_view>

namespace ibgpu {

// The names are the codes as reports write them.
enum class ReasonCode : std::uint8_t {
  GPU_MISSING,
  GPUS_UNHEALTHY,
  GPU_XID,
  GPU_LOST,
  GPU_NOT_ON_PCI,
  GPU_ECC_UNCORRECTABLE,
  GPU_ECC_DISABLED,
  GPU_REMAP_FAILED,
  GPU_REMAP_PENDING,
  GPU_RETIRED_PAGES_PENDING,
  GPU_NVLINK_DOWN,
  GPU_NVLINK_SLOW,
  GPU_NVLINK_ERRORS,
  GPU_FABRIC_NOT_REGISTERED,
  GPU_FABRIC_UNHEALTHY,
  NVLINK_DOMAIN_SPLIT,
  NVLINK_DOMAIN_SHORT,
  IMEX_CHANNEL_MISSING,
  IMEX_SERVICE_DOWN,
  GPU_PCIE_DOWNTRAINED,
  GPU_THERMAL_SLOWDOWN,
  GPU_POWER_SLOWDOWN,
  GPU_TEMP_HIGH,
  GPU_PERSISTENCE_OFF,
  GPU_COMPUTE_WRONG,
  GPU_COPY_BW_LOW,
  GPU_COPY_BW_OUTLIER,
  GPU_MEM_BW_LOW,
  GPU_MEM_BW_OUTLIER,
  IB_PORT_DOWN,
  IB_PORTS_MISSING,
  IB_PORT_RATE_LOW,
  IB_PORT_WIDTH_LOW,
  HCA_PCIE_DOWNTRAINED,
  IB_PORT_SPEED_BELOW_CAPABILITY,
  IB_LINK_DOWNED,
  IB_SYMBOL_ERRORS,
  IB_LINK_ERROR_RECOVERY,
  IB_RCV_ERRORS,
  IB_LINK_INTEGRITY_ERRORS,
  IB_BUFFER_OVERRUN,
  IB_LINK_FLAP,
  RAIL_MASKED,
  IB_LINK_BW_LOW,
  IB_LINK_BW_OUTLIER,
  NET_BW_LOW,
  NET_BW_OUTLIER,
  LAT_HIGH,
  LAT_OUTLIER,
  PAIR_BAD,
  FABRIC_SWITCH_BAD,
  FABRIC_UPLINK_BAD,
  FABRIC_PATH_BAD,
  ALLREDUCE_BUSBW_LOW,
  ALLREDUCE_BUSBW_OUTLIER,
  ALLREDUCE_WRONG_DATA,
  ALLREDUCE_TRANSPORT_UNEXPECTED,
  CHECK_SKIPPED,
  CHECK_NOT_RUN,
  NOT_JUDGED,
  PROBE_TIMEOUT,
  PROBE_ERROR,
  PROBE_ERROR_NOT_REPRODUCED,
  PROBE_FAILED,
  BURN_IN_FLAKY,
  BURN_IN_DRIFT,
  BURN_IN_SEEN_ONCE,
  HISTORY_TRANSIENT,
  HISTORY_FLAPPING,
  HISTORY_LEMON,
};

// The documentation's groups of codes, in order.
enum class ReasonGroup : std::uint8_t {
  gpu,
  rdma_port,
  network_pair,
  fabric,
  allreduce,
  probe_outcome,
  burn_in,
  history
};

struct ReasonGroupInfo {
  ReasonGroup group;
  std::string_view title;  // "RDMA port"
  std::string_view note;   // said beside the title, or empty
};

struct ReasonCodeInfo {
  ReasonCode code;
  std::string_view name;  // as reports write it: "IB_PORT_DOWN"
  ReasonGroup group;
  // The rest is Markdown (`code` spans), as docs/reason-codes.md shows it.
  std::string_view lands_on;    // the entity kinds, and how it gets there
  std::string_view states;      // the states it gives
  std::string_view fires_when;  // the rule
  std::string_view what_to_do;  // the operator's next steps, in full
  std::string_view next_step;   // in short: at most 64 characters, for a summary line
};

std::span<const ReasonCodeInfo> every_reason_code();  // every code, in the table's order
std::span<const ReasonGroupInfo> every_reason_group();
const ReasonCodeInfo& info(ReasonCode code);
const ReasonGroupInfo& info(ReasonGroup group);
std::string_view to_string(ReasonCode code);
std::optional<ReasonCode> reason_code_from_string(std::string_view name);
std::ostream& operator<<(std::ostream& out, ReasonCode code);  // its name

// Codes in the order of their names, as reports list them.
struct ReasonCodeByName {
  bool operator()(ReasonCode a, ReasonCode b) const { return to_string(a) < to_string(b); }
};

}  // namespace ibgpu
