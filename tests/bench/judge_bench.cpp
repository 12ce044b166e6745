// Times judging and rendering at fleet scale: 4096 hosts x 8 rails, verbs
// bandwidth and latency per rail for the pairs of a few circle-method rounds
// (what a check with a bounded pair plan runs), one intra-node all-reduce per
// host, one slow node, one slow rail and one slow link, after rank 0's parse
// of the gathered JSON. Not a test: run it by hand (build target
// ibgpu_judge_bench) and read the numbers.
//   ibgpu_judge_bench [--render-runs N] [--judge-runs N] [--out FILE] [hosts] [rounds]
// --render-runs N renders each report N times and prints the fastest run:
// the renderers' cost, with less of the neighbours' noise; --judge-runs N
// does so for the judge (a profiler then sees mostly the judge). --out FILE
// writes the JSON report, to compare the verdicts of two builds.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>
#include <ostream>
#include <streambuf>
#include <string_view>

#include "health/judge.h"
#include "health/localise.h"
#include "reports/json.h"
#include "reports/reporter.h"
#include "scheduler/kubernetes.h"
#include "tests/bench/bench_util.h"
#include "tests/health/synthetic_fleet.h"

namespace {

// judge_bench's names for the shared helpers.
struct Clock {
  static double now() { return ibgpu::bench::cpu_ms(); }
};
using ibgpu::bench::CountingBuf;
using ibgpu::bench::faults;
using ibgpu::bench::ms_since;

}  // namespace

int main(int argc, char** argv) {
  using namespace ibgpu;
  testing::FleetShape f;
  int render_runs = 1, judge_runs = 1;
  const char* out_path = nullptr;
  while (argc > 2 && std::string_view(argv[1]).starts_with("--")) {
    const std::string_view option = argv[1];
    if (option == "--render-runs")
      render_runs = std::atoi(argv[2]);
    else if (option == "--judge-runs")
      judge_runs = std::atoi(argv[2]);
    else if (option == "--out")
      out_path = argv[2];
    else
      break;
    argc -= 2;
    argv += 2;
  }
  f.hosts = argc > 1 ? std::atoi(argv[1]) : 4096;
  f.rounds = argc > 2 ? std::atoi(argv[2]) : 4;
  if (f.hosts < 4 || f.hosts % 2 || f.rounds < 1 || f.rounds >= f.hosts || render_runs < 1 || judge_runs < 1) {
    std::cerr << "usage: ibgpu_judge_bench [--render-runs N >= 1] [--judge-runs N >= 1] [--out FILE] [even hosts >= 4] "
                 "[rounds < hosts]\n";
    return 64;
  }

  auto t = Clock::now();
  double parse_ms = 0;
  Report report;
  {
    auto run = testing::synthetic_run(f, [](int a, int b, int rail, testing::PairShape& s) {
      if (a == 5 || b == 5) s.bw_GBps = 30;                   // slow node
      if ((a == 20 || b == 20) && rail == 3) s.bw_GBps = 30;  // slow rail
      if (a == 0 && rail == 1) s.lat_p50_us = 9;              // slow links of node00's first pairs on one rail
    });
    report.hosts = std::move(run.hosts);
    // Rank 0 holds results as the gather parsed them from each rank's JSON,
    // one rank after another, each rank's text freed before the next: so
    // does the bench. (A result built in place, metric by metric, lies in
    // memory differently, and walks of it cost differently.)
    // The parse is counted: rank 0 does it for every gathered rank.
    constexpr std::size_t kPerRank = 64;
    for (std::size_t first = 0; first < run.probes.size(); first += kPerRank) {
      const auto from = run.probes.begin() + static_cast<std::ptrdiff_t>(first);
      const auto to = run.probes.begin() + static_cast<std::ptrdiff_t>(std::min(first + kPerRank, run.probes.size()));
      const std::string sent =
          nlohmann::json(std::vector<ProbeResult>(std::make_move_iterator(from), std::make_move_iterator(to))).dump();
      std::for_each(from, to, [](ProbeResult& sender) { sender = ProbeResult{}; });
      const double parse_start = Clock::now();
      auto received = nlohmann::json::parse(sent).get<std::vector<ProbeResult>>();
      parse_ms += ms_since(parse_start);
      std::move(received.begin(), received.end(), std::back_inserter(report.probes));
    }
  }
  const double synth_ms = ms_since(t) - parse_ms;
  report.tool = ToolInfo{"ibgpu", "bench", "bench"};
  report.run.id = "bench";
  report.run.started = report.run.finished = "2026-01-01T00:00:00Z";
  report.run.ranks = f.hosts * f.gpus;
  const Profile profile = generic_profile();
  report.run.profile = to_json(profile);

  long fa = faults();
  t = Clock::now();
  Judgement j = judge(report.hosts, report.probes, profile);
  double judge_ms = ms_since(t);
  for (int i = 1; i < judge_runs; ++i) {
    t = Clock::now();
    j = judge(report.hosts, report.probes, profile);
    judge_ms = std::min(judge_ms, ms_since(t));
  }
  const long judge_faults = faults() - fa;
  report.verdicts = std::move(j.verdicts);
  report.summary = std::move(j.summary);
  report.summary.kubernetes = kubernetes_map(report.verdicts);  // as the check command does

  // The fastest of --render-runs renderings; the page faults of the first.
  auto fastest_render = [&](const Reporter& reporter, std::size_t& bytes, long& first_faults) {
    double best = 0;
    for (int i = 0; i < render_runs; ++i) {
      const long before = faults();
      const double start = Clock::now();
      CountingBuf buf;
      std::ostream text(&buf);
      reporter.render(report, text);
      const double ms = ms_since(start);
      if (i == 0) first_faults = faults() - before;
      best = i == 0 ? ms : std::min(best, ms);
      bytes = buf.count;
    }
    return best;
  };
  std::size_t json_bytes = 0, table_bytes = 0, full_bytes = 0;
  long json_faults = 0, table_faults = 0, full_faults = 0;
  const double json_ms = fastest_render(JsonReporter{}, json_bytes, json_faults);
  const double table_ms = fastest_render(TableReporter{}, table_bytes, table_faults);
  const double full_ms = fastest_render(TableReporter{TableReporter::Detail::full}, full_bytes, full_faults);

  if (out_path) {
    std::ofstream out(out_path);
    JsonReporter{}.render(report, out);
    if (!out) {
      std::cerr << "cannot write " << out_path << "\n";
      return 1;
    }
  }

  std::size_t unhealthy = 0;
  for (const auto& v : report.verdicts) unhealthy += v.state != HealthState::healthy ? 1 : 0;
  // The goal: what rank 0 spends after the gather (parse, judge, both
  // reports) within a few seconds of CPU.
  const double total_ms = parse_ms + judge_ms + json_ms + table_ms;
  std::cout << "CPU time per step (ms)\n"
            << f.hosts << " hosts x " << f.rails << " rails, " << f.rounds << " rounds: " << report.probes.size()
            << " probe results, " << report.verdicts.size() << " verdicts (" << unhealthy << " not healthy), exit "
            << report.summary.exit_code << "\n"
            << "  synthesise   " << synth_ms << " ms (not counted)\n"
            << "  parse        " << parse_ms << " ms (the gathered JSON)\n"
            << "  judge        " << judge_ms << " ms (" << judge_faults << " page faults)\n"
            << "  render json  " << json_ms << " ms (" << static_cast<double>(json_bytes) / 1e6 << " MB, "
            << json_faults << " page faults)\n"
            << "  render table " << table_ms << " ms (" << static_cast<double>(table_bytes) / 1e6 << " MB, "
            << table_faults << " page faults)\n"
            << "  table-full   " << full_ms << " ms (" << static_cast<double>(full_bytes) / 1e6 << " MB, "
            << full_faults << " page faults; not counted: --format table-full)\n"
            << "  total        " << total_ms << " ms: " << (total_ms < 5000 ? "under" : "OVER")
            << " the 5000 ms goal, at " << static_cast<int>(total_ms / 50 + 0.5) << "% of it\n";
  return 0;
}
