#pragma once
// The reason-code table (core/reason_codes.h) as text: the table of docs/reason-codes.md, one
// code as `ibgpu explain CODE` prints it, and the list `ibgpu explain` prints.
#include <cstddef>
#include <iosfwd>
#include <span>

#include "core/reason_codes.h"

namespace ibgpu {

// The Markdown table, a heading row per group; docs/reason-codes.md ends with it. With `only`,
// those codes' rows (and their groups').
void write_reason_code_markdown(std::ostream& out, std::span<const ReasonCode> only = {});

// One code for a terminal: each field under its name, wrapped within `width` columns, the
// Markdown code spans plain.
void write_reason_code_text(std::ostream& out, const ReasonCodeInfo& row, std::size_t width);

// Every code with its next step in short, by group.
void write_reason_code_list(std::ostream& out);

}  // namespace ibgpu
