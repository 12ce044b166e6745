#pragma once
// What an operator does next, beside the nodes not admitted: what became of the decision. The
// next step per reason code is in its row (core/reason_codes.h), the full advice in
// docs/reason-codes.md and `ibgpu explain CODE`.
#include <string>

#include "core/report.h"

namespace ibgpu {

// Where the full advice is read on a node, wherever the package was installed (/usr, /opt/ibgpu):
// the binary prints a code's row. Every format says it beside the next steps.
inline constexpr const char* kFullAdvice = "ibgpu explain CODE";

// What became of the run's decisions, for a report with nodes not admitted: whether anything was
// (or will be, once the report is written) drained, or only printed, or nothing was asked for.
std::string actions_taken(const Report& r);

}  // namespace ibgpu
