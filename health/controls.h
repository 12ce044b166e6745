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

// Rank 0, once every result is in: each verbs pair error whose ends' controls both ran gets
// params.control, {"reproduced": bool, "by": "..."} in words; an error with a control missing
// (a rank lost, --retests 0) is left as it was. Pure.
void settle_by_controls(std::vector<ProbeResult>& results);

// The words of a pair error its controls ran on and did not reproduce; nullopt otherwise.
std::optional<std::string> not_reproduced(const ProbeResult& p);

}  // namespace ibgpu
