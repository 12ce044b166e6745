#pragma once
// The parts of the terminal table that give the answer first (verdict counts,
// the nodes not admitted with their main reason and next step), and the
// summaries that stand in for the long tables of a fleet (per rail, per leaf).
// Pure functions of the report onto a stream; table_reporter.cpp puts them in
// order.
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/report.h"
#include "reports/text_table.h"

namespace ibgpu {

// Past this many results (probe results and verdicts), the table shows what
// needs a look and says where the rest is: 8 hosts x 8 rails, all pairs, hold
// about 700; 64 hosts, one round, already about 3,000.
inline constexpr std::size_t kFullTableResults = 2000;

// Whether the table of this report is the short one (unless asked for in full).
bool table_is_long(const Report& r);

// "Result: ..." with the verdict counts per entity kind, then one line per node
// not admitted (drained first) with its main reason and what to do next.
void print_answer(const Report& r, std::ostream& out, LineWidth width);
// A line of text within `width` columns: wrapped at blanks, the lines after the first indented by two.
void print_words(std::ostream& out, const std::string& text, LineWidth width);

// Per rail (the RDMA port a pair measured on), per probe and size: the pairs,
// those not ok, and the spread of bandwidth and latency; the rail's ports that
// are not healthy.
void print_rail_summary(const Report& r, std::ostream& out, LineWidth width);

// Per leaf switch, when the report places hosts on leaves: hosts, nodes drained
// or degraded, links not healthy (a link between two leaves counts in both).
// Prints nothing when no host has a leaf.
void print_leaf_summary(const Report& r, std::ostream& out, LineWidth width);

// The leaf switch of a host (HostInventory::leaf, from --topology); empty when
// the report does not place it.
std::string leaf_of(const Report& r, const std::string& host);

// A node not admitted (drained or admitted degraded), its main reason and what to do next: the
// node's own first reason, or its worst part's ("GPU_ECC_UNCORRECTABLE (gpu3)"), and that code's
// next step. Every format that lists such nodes says the same.
struct NodeNextStep {
  const Verdict* node = nullptr;
  std::optional<ReasonCode> code;  // the main reason's, none when the node has none
  std::string reason;              // the main reason as the table prints it
  std::string step;
};
// The nodes not admitted, drained first (the report's order within each action).
std::vector<NodeNextStep> nodes_not_admitted(const Report& r);

// A node's GPUs or rails as the admission tables print them: usable of all it has ("7/8"), "-" for
// none. A drained node lends none: 0 of the parts its inventory lists ("0/8", not the one excluded).
class PartCounts {
 public:
  explicit PartCounts(const Report& r);
  explicit PartCounts(Report&&) = delete;  // keeps views into the report
  std::string operator()(const Verdict& node, bool gpu) const;

 private:
  std::unordered_map<std::string_view, const HostInventory*> inventory_;
};

// "1,234,567": counts at fleet scale read better grouped.
std::string grouped(std::size_t n);

}  // namespace ibgpu
