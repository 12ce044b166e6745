// The terminal table a person reads: the answer first, every line within 120
// columns, and past a size what needs a look with a word on where the rest is.
// Golden files for 8 hosts (in full) and 64 (shortened); 4,096 hosts are
// generated here and held to a size, not to a text. After an intended change:
//   IBGPU_UPDATE_GOLDEN=1 ctest --test-dir build -R Golden
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "reports/reporter.h"
#include "reports/table_summary.h"
#include "reports/text_table.h"
#include "tests/reports/fleet_report.h"
#include "tests/reports/golden.h"
#include "tests/reports/report_fixture.h"

namespace ibgpu {
namespace {

using namespace ibgpu::golden;
using testing::fleet_report;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void expect_within_width(const std::string& text, const std::string& what, std::size_t width = kLineWidth) {
  const auto lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i)
    EXPECT_LE(lines[i].size(), width) << what << " line " << i + 1 << ": " << lines[i];
}

// "gpu[0-7]" -> gpu0 ... gpu7; "a,b[1,3]" -> a, b1, b3; "mlx5_[0-1]:1" -> mlx5_0:1, mlx5_1:1
// (enough for the names these tests fold).
std::set<std::string> expand(const std::string& list) {
  std::set<std::string> names;
  std::size_t at = 0;
  while (at < list.size()) {
    const std::size_t open = list.find('[', at), comma = list.find(',', at);
    if (open == std::string::npos || (comma != std::string::npos && comma < open)) {
      const std::size_t end = comma == std::string::npos ? list.size() : comma;
      names.insert(list.substr(at, end - at));
      at = end + 1;
      continue;
    }
    const std::size_t close = list.find(']', open);
    const std::string prefix = list.substr(at, open - at);
    const std::size_t end = std::min(list.find(',', close), list.size());
    const std::string suffix = list.substr(close + 1, end - close - 1);
    std::istringstream ranges(list.substr(open + 1, close - open - 1));
    for (std::string range; std::getline(ranges, range, ',');) {
      const auto dash = range.find('-');
      const std::string first = range.substr(0, dash),
                        last = dash == std::string::npos ? first : range.substr(dash + 1);
      for (long n = std::stol(first); n <= std::stol(last); ++n) {
        std::string digits = std::to_string(n);
        if (digits.size() < first.size()) digits.insert(0, first.size() - digits.size(), '0');
        names.insert(prefix + digits + suffix);
      }
    }
    at = end + 1;
  }
  return names;
}

// The entities the table's verdict rows name ("  gpu node01/gpu[0-7]  unknown ..."), folded rows expanded.
std::set<std::string> entities_shown(const std::string& text) {
  std::set<std::string> shown;
  for (const auto& line : lines_of(text)) {
    std::istringstream words(line);
    std::string kind, id;
    if (!(words >> kind >> id)) continue;
    const auto slash = id.find('/');
    if (slash == std::string::npos || id.find('[') == std::string::npos) {
      shown.insert(kind + " " + id);
      continue;
    }
    for (const auto& part : expand(id.substr(slash + 1))) shown.insert(kind + " " + id.substr(0, slash + 1) + part);
  }
  return shown;
}

TEST(TableGolden, EightHostsInFull) {
  const Report r = fleet_report(8, 7);
  ASSERT_FALSE(table_is_long(r));
  expect_golden("fleet8.table.txt", render(TableReporter{}, r));
}

TEST(TableGolden, SixtyFourHostsShortened) {
  const Report r = fleet_report(64, 8);
  ASSERT_TRUE(table_is_long(r));
  expect_golden("fleet64.table.txt", render(TableReporter{}, r));
}

// An 80-column terminal: the same tables, lists folded, the columns read last left out, reasons wrapped.
TEST(TableGolden, EightyColumns) {
  const TableReporter narrow(TableReporter::Detail::fit, LineWidth{80, true});
  expect_golden("report.table.80.txt", render(narrow, testing::sample_report()));
  expect_golden("fleet8.table.80.txt", render(narrow, fleet_report(8, 7)));
}

TEST(Table, EveryLineFitsTheWidth) {
  const TableReporter narrow(TableReporter::Detail::fit, LineWidth{80, true});
  expect_within_width(render(narrow, testing::sample_report()), "sample at 80", 80);
  expect_within_width(render(narrow, fleet_report(8, 7)), "8 hosts at 80", 80);
  expect_within_width(render(narrow, fleet_report(64, 8)), "64 hosts at 80", 80);
  expect_within_width(render(TableReporter{}, testing::sample_report()), "sample");
  expect_within_width(render(TableReporter{}, fleet_report(8, 7)), "8 hosts");
  expect_within_width(render(TableReporter{}, fleet_report(64, 8)), "64 hosts");
  expect_within_width(render(TableReporter{TableReporter::Detail::full}, fleet_report(64, 2)), "64 hosts in full");
}

TEST(Table, TheAnswerComesFirstWithTheNextStep) {
  const std::string text = render(TableReporter{}, fleet_report(8, 7));
  const auto result = text.find("\nResult: "), hosts = text.find("\nHosts\n");
  ASSERT_NE(result, std::string::npos);
  EXPECT_LT(result, hosts);
  // The node without a driver is drained: its line names the reason and what to do.
  const auto lines = lines_of(text);
  const auto no_driver = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.starts_with("  " + testing::host_name(testing::kNoDriverNode) + " ");
  });
  ASSERT_NE(no_driver, lines.end());
  EXPECT_NE(no_driver->find("drain"), std::string::npos) << *no_driver;
  EXPECT_NE(no_driver->find("CHECK_SKIPPED"), std::string::npos) << *no_driver;
  EXPECT_LT(static_cast<std::size_t>(no_driver - lines.begin()),
            static_cast<std::size_t>(std::find(lines.begin(), lines.end(), "Hosts") - lines.begin()));
}

// A drained node lends the pool none of its parts: 0 of all its inventory lists, not of the one
// excluded; a node admitted degraded counts what it lends of what the verdict lists.
TEST(Table, ADrainedNodeCountsNoneOfAllItsParts) {
  Report r;
  HostInventory host;
  host.name = "n1";
  for (int i = 0; i < 8; ++i) {
    GpuInfo gpu;
    gpu.index = i;
    host.gpus.push_back(gpu);
  }
  Hca hca;
  hca.name = "mlx5_0";
  hca.rail = true;
  IbPort port;
  port.port = 1;
  hca.ports.push_back(port);
  host.hcas.push_back(hca);
  r.hosts.push_back(host);
  Verdict drained{Entity::node("n1"), HealthState::failed, {}, Action::drain};
  drained.excluded = {"gpu3"};
  const PartCounts count(r);
  EXPECT_EQ(count(drained, true), "0/8");
  EXPECT_EQ(count(drained, false), "0/1");
  Verdict degraded{Entity::node("n1"), HealthState::degraded, {}, Action::admit_degraded};
  degraded.usable = {"gpu0", "gpu1", "mlx5_0:1"};
  degraded.excluded = {"gpu3"};
  EXPECT_EQ(count(degraded, true), "2/3");
  EXPECT_EQ(count(degraded, false), "1/1");
  Verdict unknown_host{Entity::node("n2"), HealthState::failed, {}, Action::drain};
  EXPECT_EQ(count(unknown_host, true), "-");  // no inventory, nothing listed
}

TEST(Table, AMessageRepeatedBySeveralChecksIsShownOnce) {
  const std::string text = render(TableReporter{}, fleet_report(8, 7));
  const std::string cuda = "cudaGetDeviceCount";
  std::size_t verdict_lines = 0;
  bool in_verdicts = false;
  for (const auto& line : lines_of(text)) {
    if (!line.empty() && line[0] != ' ') in_verdicts = line == "Verdicts";
    if (in_verdicts && line.find(cuda) != std::string::npos) ++verdict_lines;
  }
  EXPECT_EQ(verdict_lines, 1u) << "the three CUDA checks of the node without a driver, on one line";
}

// 4,096 hosts x 8 rails, four rounds: 131,072 pair results, as issue 20 measured;
// one node in 64 slow and one dead besides the faults of the smaller fleets.
TEST(Table, AtFleetScaleItShowsWhatNeedsALookAndWhereTheRestIs) {
  const Report r = fleet_report(4096, 4, true);
  const std::string text = render(TableReporter{}, r);
  EXPECT_LT(text.size(), std::size_t{256} << 10) << "the shortened table of 4,096 hosts";
  expect_within_width(text, "4,096 hosts");
  const std::set<std::string> shown = entities_shown(text);
  std::size_t not_healthy = 0;
  for (const auto& v : r.verdicts) {
    if (v.state == HealthState::healthy) continue;
    ++not_healthy;
    EXPECT_TRUE(shown.count(entity_text(v.entity))) << entity_text(v.entity);
  }
  EXPECT_GT(not_healthy, 64u);
  EXPECT_NE(text.find("\nPer rail"), std::string::npos);
  for (int rail = 0; rail < 8; ++rail)
    EXPECT_NE(text.find("\n  " + testing::rail_name(rail) + " "), std::string::npos) << testing::rail_name(rail);
  EXPECT_NE(text.find("\nAdmission (the nodes not admitted as they are)"), std::string::npos);
  EXPECT_NE(text.find("--json FILE"), std::string::npos);
  EXPECT_NE(text.find("--format table-full"), std::string::npos);
  EXPECT_NE(text.find("\nSummary: "), std::string::npos);
  // Past 50 nodes not admitted, the rest are counted by reason; past 100 pairs not ok, counted.
  EXPECT_NE(text.find(" by main reason:\n"), std::string::npos);
  EXPECT_NE(text.find(" more pairs not ok (in the JSON report)"), std::string::npos);
}

// nccl-tests puts the in-place half beside the out-of-place one; within 120 columns it goes under it.
TEST(Table, AnAllReduceWithBothHalvesFitsTheWidth) {
  Report r = testing::sample_report();
  for (const bool in_place : {false, true}) {
    ProbeResult p;
    p.id = "collective.mpi.all_reduce";
    p.scope = Scope{{"node1"}, {0, 1}, {}};
    p.params = {{"placement", "job"}, {"group", "job"},   {"nranks", 4},         {"size_B", 262144},
                {"count", 65536},     {"dtype", "float"}, {"in_place", in_place}};
    p.metrics = {{"time_us_avg", Metric::of(in_place ? 168.0 : 762.0)},
                 {"algbw_GBps", Metric::of(1.376)},
                 {"busbw_GBps", Metric::of(2.064)},
                 {"wrong_elements_total", Metric::of(0)},
                 {"time_us_max", Metric::of(780.5)},
                 {"slowest_rank", Metric::of(1)}};
    r.probes.push_back(p);
  }
  const std::string text = render(TableReporter{}, r);
  expect_within_width(text, "all-reduce");
  const auto lines = lines_of(text);
  const auto row = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.starts_with("  collective.mpi.all_reduce  job        job        4  256K  65536  float  no ");
  });
  ASSERT_NE(row, lines.end()) << text;
  ASSERT_LT(row + 2, lines.end());
  EXPECT_NE(row[1].find(" yes "), std::string::npos) << row[1];
  EXPECT_EQ(row[2], "      slowest: node1 rank 1 780.5 us");
}

TEST(Table, RailsAreSummarisedInTheirNumbersOrder) {
  testing::FleetShape f;
  f.hosts = 4;
  f.rounds = 3;
  f.rails = 12;
  Report r;
  r.probes = testing::synthetic_run(f).probes;
  std::ostringstream out;
  print_rail_summary(r, out, LineWidth{});
  const std::string text = out.str();
  const auto rail2 = text.find("\n  mlx5_2:1 "), rail10 = text.find("\n  mlx5_10:1 ");
  ASSERT_NE(rail2, std::string::npos) << text;
  ASSERT_NE(rail10, std::string::npos) << text;
  EXPECT_LT(rail2, rail10);
  EXPECT_NE(text.find("net.verbs.write_bw     8M      6       0"), std::string::npos) << text;
}

TEST(Table, InFullItHasEveryRow) {
  const Report r = fleet_report(64, 2);
  const std::string text = render(TableReporter{TableReporter::Detail::full}, r);
  std::size_t rows = 0;
  for (const auto& line : lines_of(text)) rows += line.starts_with("  net.verbs.write_") ? 1 : 0;
  EXPECT_EQ(rows, 64u / 2 * 2 * 8 * 2);
  EXPECT_EQ(text.find("Shortened"), std::string::npos);
  EXPECT_EQ(render(*make_reporter("table-full"), r), text);
}

// --topology places hosts on leaves (HostInventory::leaf); the shortened table sums them per leaf.
TEST(Table, TheShortenedTableSummarisesEachLeaf) {
  Report r = fleet_report(64, 8);
  EXPECT_EQ(leaf_of(r, testing::host_name(40)), "leaf2");
  EXPECT_EQ(leaf_of(r, "no-such-host"), "");
  std::ostringstream out;
  print_leaf_summary(r, out, LineWidth{});
  std::size_t hosts = 0, not_admitted = 0;
  std::vector<std::string> leaves;
  for (const auto& line : lines_of(out.str())) {
    std::istringstream words(line);
    std::string leaf;
    std::size_t n = 0, drain = 0, degraded = 0, links = 0;
    if (!(words >> leaf >> n >> drain >> degraded >> links) || !leaf.starts_with("leaf")) continue;
    leaves.push_back(leaf);
    hosts += n;
    not_admitted += drain + degraded;
    EXPECT_EQ(n, 32u) << line;
  }
  EXPECT_EQ(leaves, (std::vector<std::string>{"leaf1", "leaf2"})) << out.str();
  EXPECT_EQ(hosts, 64u);
  const auto expected = std::count_if(r.verdicts.begin(), r.verdicts.end(), [](const Verdict& v) {
    return v.entity.kind() == EntityKind::node && v.action && *v.action != Action::admit;
  });
  EXPECT_GT(expected, 0);
  EXPECT_EQ(not_admitted, static_cast<std::size_t>(expected));
  EXPECT_NE(render(TableReporter{}, r).find("\nPer leaf switch\n"), std::string::npos);

  for (auto& h : r.hosts) h.leaf.clear();  // no topology: no leaf table
  std::ostringstream none;
  print_leaf_summary(r, none, LineWidth{});
  EXPECT_EQ(none.str(), "");
}

}  // namespace
}  // namespace ibgpu
