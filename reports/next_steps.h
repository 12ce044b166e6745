#pragma once
// What an operator does next about a reason code, in a few words that fit one
// line of the table's summary. The full advice is the "what to do" column of
// docs/reason-codes.md; tests/reports/next_steps_test.cpp holds the two to the
// same set of codes.
#include <string>
#include <string_view>
#include <vector>

#include "core/report.h"

namespace ibgpu {

// Where the full advice is read on a node: the package's documentation.
inline constexpr const char* kReasonCodesDoc = "/usr/share/doc/ibgpu/reason-codes.md";

// What became of the run's decisions, for a report with nodes not admitted: whether anything was
// (or will be, once the report is written) drained, or only printed, or nothing was asked for.
std::string actions_taken(const Report& r);

// The next step for `code`; for a code this build does not know, a pointer to
// the documentation.
std::string_view next_step(std::string_view code);

// The codes with a next step of their own, in the order of the documentation.
std::vector<std::string_view> codes_with_next_step();

}  // namespace ibgpu
