// Times judging and rendering at fleet scale: 4096 hosts x 8 rails, verbs
// bandwidth and latency per rail for the pairs of a few circle-method rounds
// (what a check with a bounded pair plan runs), one intra-node all-reduce per
// host, one slow node, one slow rail and one slow link. Not a test: run it by
// hand (build target ibgpu_judge_bench) and read the numbers.
//   ibgpu_judge_bench [hosts] [rounds]
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <ostream>
#include <streambuf>

#include <sys/resource.h>

#include "health/judge.h"
#include "health/localise.h"
#include "reports/reporter.h"
#include "tests/health/synthetic_fleet.h"

namespace {

// Process CPU time: on a shared machine wall time mostly measures the neighbours.
struct Clock {
  using time_point = double;
  static double now() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
  }
};

double ms_since(double t) { return Clock::now() - t; }

// Fresh memory is much of the cost (a first touch of a page is a fault, and
// dear in a VM): each step's minor page faults are printed beside its time.
long faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Counts what a reporter writes and drops it: the cost measured is the
// formatting, as when the report streams to a file, not a growing string.
class CountingBuf : public std::streambuf {
 public:
  std::size_t count = 0;

 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) ++count;
    return c;
  }
  std::streamsize xsputn(const char*, std::streamsize n) override {
    count += static_cast<std::size_t>(n);
    return n;
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace ibgpu;
  testing::FleetShape f;
  f.hosts = argc > 1 ? std::atoi(argv[1]) : 4096;
  f.rounds = argc > 2 ? std::atoi(argv[2]) : 4;
  if (f.hosts < 4 || f.hosts % 2 || f.rounds < 1 || f.rounds >= f.hosts) {
    std::cerr << "usage: ibgpu_judge_bench [even hosts >= 4] [rounds < hosts]\n";
    return 64;
  }

  auto t = Clock::now();
  Report report;
  {
    auto run = testing::synthetic_run(f, [](int a, int b, int rail, testing::PairShape& s) {
      if (a == 5 || b == 5) s.bw_GBps = 30;                   // slow node
      if ((a == 20 || b == 20) && rail == 3) s.bw_GBps = 30;  // slow rail
      if (a == 0 && rail == 1) s.lat_p50_us = 9;              // slow links of node00's first pairs on one rail
    });
    report.hosts = std::move(run.hosts);
    report.probes = std::move(run.probes);
  }
  const double synth_ms = ms_since(t);
  report.tool = ToolInfo{"ibgpu", "bench", "bench"};
  report.run.id = "bench";
  report.run.started = report.run.finished = "2026-01-01T00:00:00Z";
  report.run.ranks = f.hosts * f.gpus;
  const Profile profile = generic_profile();
  report.run.profile = to_json(profile);

  long fa = faults();
  t = Clock::now();
  Judgement j = judge(report.hosts, report.probes, profile);
  const double judge_ms = ms_since(t);
  const long judge_faults = faults() - fa;
  report.verdicts = std::move(j.verdicts);
  report.summary = std::move(j.summary);

  fa = faults();
  t = Clock::now();
  CountingBuf json_buf;
  std::ostream json_text(&json_buf);
  JsonReporter{}.render(report, json_text);
  const double json_ms = ms_since(t);
  const long json_faults = faults() - fa;

  fa = faults();
  t = Clock::now();
  CountingBuf table_buf;
  std::ostream table_text(&table_buf);
  TableReporter{}.render(report, table_text);
  const double table_ms = ms_since(t);
  const long table_faults = faults() - fa;

  std::size_t unhealthy = 0;
  for (const auto& v : report.verdicts) unhealthy += v.state != HealthState::healthy ? 1 : 0;
  // The goal (judging and admission): judge and both reports well under a second.
  const double total_ms = judge_ms + json_ms + table_ms;
  std::cout << "CPU time per step (ms)\n" << f.hosts << " hosts x " << f.rails << " rails, " << f.rounds << " rounds: " << report.probes.size()
            << " probe results, " << report.verdicts.size() << " verdicts (" << unhealthy << " not healthy), exit "
            << report.summary.exit_code << "\n"
            << "  synthesise   " << synth_ms << " ms (not counted)\n"
            << "  judge        " << judge_ms << " ms (" << judge_faults << " page faults)\n"
            << "  render json  " << json_ms << " ms (" << static_cast<double>(json_buf.count) / 1e6 << " MB, "
            << json_faults << " page faults)\n"
            << "  render table " << table_ms << " ms (" << static_cast<double>(table_buf.count) / 1e6 << " MB, "
            << table_faults << " page faults)\n"
            << "  total        " << total_ms << " ms: " << (total_ms < 1000 ? "under" : "OVER") << " the 1000 ms goal, at "
            << static_cast<int>(total_ms / 10 + 0.5) << "% of it\n";
  return 0;
}
