#pragma once
// ibgpu's own faults told apart (DESIGN.md, "Verdicts"): before a device is blamed for an error, a
// control that uses less of the stack runs where one exists. An error the control does not
// reproduce is `unknown` with the instrument's reason code (PROBE_ERROR_NOT_REPRODUCED), never
// `failed`; one it reproduces stands, and the control's own error is the device's.
//
// The control of a verbs pair that ended in an error: each end's port writes to itself
// (net.verbs.loopback, probes/net/verbs/loopback.h). Rank 0 plans them between the steps
// (app/retests.cpp), the ends run them, and rank 0 reads them with the pairs once every result is
// in. A control result carries the pair it controls in params.control_of: {round, ranks}.
//
// The control of an all-reduce group that ended in an error (a rank's own result `error`, from NCCL
// or MPI_Allreduce): the group's ranks sum again by a ring of MPI point-to-point messages on host
// memory (probes/collective/ring_allreduce.h), which uses neither NCCL, nor GPU memory, nor MPI's
// collectives. After the last placement each rank tells rank 0 which of its groups ended in its
// own error, rank 0 orders one control per such group, and its ranks run it (app/collectives.cpp).
// Not reproduced across two hosts or more, the error may be the path's or the instrument's, which
// no node's verdict should carry: the group's link or pseudo-link is unknown, its nodes admitted.
// On one host it may be the instrument's or that node's GPUs' (the ring uses neither): the node is
// unknown, not decided (health/decision.h), never failed. An error on a GPU's side (a CUDA call's,
// params.error_call, or NCCL's "unhandled cuda error") is one the ring cannot speak for: its group
// is judged as without a control. A control result carries params.control_of: {placement, ranks}.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace ibgpu {

struct ControlOrder {
  int rank = 0;           // the end that runs it
  std::string device;     // its rail in the pair
  std::size_t round = 0;  // the pair's network round
  std::vector<int> pair;  // the pair's ranks, initiator first
  bool operator==(const ControlOrder&) const = default;
};

// The controls the results call for: each end of each verbs pair that ended in an error, once for
// the pair's round (its results of several sizes share them), except those in `done`. Pure.
std::vector<ControlOrder> plan_controls(const std::vector<ProbeResult>& results,
                                        const std::vector<ControlOrder>& done = {});

// A control's result made into the record of what it controls (params.control_of).
void mark_control(ProbeResult& control, const ControlOrder& order);

struct GroupControlOrder {
  std::size_t index = 0;   // the placement's place in the run's list of placements
  std::string placement;   // "job", "node", "rail"
  std::vector<int> ranks;  // the group's job ranks, ascending
  bool operator==(const GroupControlOrder&) const = default;
};
std::string to_text(const std::vector<GroupControlOrder>& orders);  // JSON, for the consultation
// nullopt for text that is not a list of orders.
std::optional<std::vector<GroupControlOrder>> group_controls_from_text(const std::string& text);

// Rank 0, from each rank's word after the all-reduce (to_text of the groups that ended in its own
// error; nullopt: the rank did not check in): each group once, in order of placement, then of
// first rank. Pure.
std::vector<GroupControlOrder> plan_group_controls(const std::vector<std::optional<std::string>>& payloads);
void mark_control(ProbeResult& control, const GroupControlOrder& order);

// Rank 0, once every result is in: each verbs pair error whose ends' controls both ran gets
// params.control, {"reproduced": bool, "by": "..."} in words; an error with a control missing
// (a rank lost, --retests 0) is left as it was. The same for the errors and timeouts of an
// all-reduce group whose control ran, with "hosts": the group's, whose pseudo-link carries the
// verdict (health/judge.cpp). A control that ended in an error or wrong data reproduces; one
// that timed out or was skipped tells nothing. Pure.
void settle_by_controls(std::vector<ProbeResult>& results);

// The words of an error (or an all-reduce's timeout) its controls ran on and did not reproduce;
// nullopt otherwise.
std::optional<std::string> not_reproduced(const ProbeResult& p);

// The hosts of the all-reduce group whose control did not reproduce `p`'s error; empty otherwise.
std::vector<std::string> not_reproduced_in_group(const ProbeResult& p);

}  // namespace ibgpu
