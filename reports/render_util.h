#pragma once
// Small text helpers the reporters share. Pure.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"  // join
#include "core/verdict.h"

namespace ibgpu {

// "2026-01-02T03:04:05Z" (or with a +hh:mm offset, fractions ignored) as Unix
// seconds; nullopt when the text is not RFC 3339.
std::optional<long long> unix_seconds(const std::string& rfc3339);

// The shortest text that reads back as the same double ("11.5", "1e+20").
std::string shortest_number(double v);

// Text from outside (host names, error texts, notes) as a person should see it on a terminal or
// in Markdown: control characters (C0, DEL and the C1 range, whose CSI would start an escape
// sequence) become visible escapes ("\n", "\x1b", "\u009b"); everything else, UTF-8
// included, is kept. JSON output keeps the exact string instead.
std::string printable(std::string_view text);
bool needs_escape(std::string_view text);
// The same, in place, from `from` to the end of `text`.
void make_printable(std::string& text, std::size_t from = 0);

// `text` in lines of at most `width` characters, broken at blanks (a word
// longer than that is cut); the blanks at a break are dropped. Views into text.
std::vector<std::string_view> wrap_words(std::string_view text, std::size_t width);

// Host names as a Slurm hostlist expression, as scontrol and sinfo take them:
// "gpu[001-003,007],login1". Names that differ only in a trailing number of the
// same width are folded; the others are listed as they are, in the given order
// of first appearance.
std::string hostlist(const std::vector<std::string>& names);

// A reason's code as the reports print it, with its confidence's word where it has one:
// "NET_BW_OUTLIER (likely)" (docs/verdicts.md, Confidence).
std::string code_text(const Reason& reason);

// A work order (check --cabling) as the table and Markdown print it: what to act on and its state
// ("h4 mlx5_0:1 <-> leaf2 port 1: failed (hca_port h4/mlx5_0:1)"), then the shortfall, the
// counters that moved, what was not read and the next act, a line each.
std::vector<std::string> work_order_lines(const WorkOrder& order);

}  // namespace ibgpu
