// Times rank 0's whole path after the gather, from the payloads the ranks send
// (tests/app/fleet_payloads.h: serialised as run_round serialises them) for N
// hosts x 8 ranks with a peers:16 pair plan and one host whose pairs time out
// at both ends (echoes for assemble to drop): parse, assemble, judge,
// localise, every render format, and the atomic write of the JSON report.
// Each host count runs in a process of its own, so the peak memory printed
// (ru_maxrss after each step) is that run's. Not a test: run it by hand or by
// ci/bench/rank0.sh.
//   ibgpu_rank0_bench [--preset standard|full] [--dir DIR] [--out FILE] hosts...
// --preset: the check preset whose bandwidth and all-reduce sizes the ranks
// report (standard: 1 MiB and 8 MiB; full: four sizes); --dir: where the
// report is written (default: the working directory) and then removed;
// --out: the report is kept there instead (FILE.HOSTS with several host
// counts), so that two builds' reports can be compared byte for byte (cmp):
// the bench's inputs, run id and times are fixed. With two host counts
// or more it prints each step's growth exponent between neighbouring counts
// (CPU time ~ hosts^k).
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "app/check_plan.h"
#include "app/payload_reader.h"
#include "app/pipeline.h"
#include "health/judge.h"
#include "health/localise.h"
#include "reports/atomic_file.h"
#include "reports/json.h"
#include "reports/reporter.h"
#include "scheduler/kubernetes.h"
#include "tests/app/fleet_payloads.h"
#include "tests/bench/bench_util.h"

namespace {

using namespace ibgpu;

struct Step {
  std::string name;
  double cpu_s = 0;
  double peak_mib = 0;
  std::string note;
};

// Times `work`, recording its CPU time and the peak memory after it.
template <typename Work>
void timed(std::vector<Step>& steps, const std::string& name, Work&& work) {
  const double start = bench::cpu_ms();
  std::string note = work();
  steps.push_back({name, bench::ms_since(start) / 1e3, bench::peak_rss_mib(), std::move(note)});
}

std::string mib(std::size_t bytes) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1 << 20) << " MiB";
  return text.str();
}

std::string kib(std::size_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KiB"; }

// Pair observations as the judge hands them to localisation: one per pair
// result, grouped by probe and size (the names live in `groups`); a pair
// that did not measure is failed.
std::vector<PairObservation> observations_of(const std::vector<ProbeResult>& probes, std::set<std::string>& groups) {
  auto end = [](const ProbeResult& p, std::size_t side) {
    const Scope& s = p.scope;
    return Endpoint{s.hosts[side], s.devices.size() == 2 ? std::string_view(s.devices[side]) : "", s.ranks[side]};
  };
  std::vector<PairObservation> out;
  for (const auto& p : probes) {
    if (!is_pair_probe(p) || p.scope.ranks.size() != 2) continue;
    PairObservation o;
    o.group = *groups.insert(p.id + "@" + p.params.value("size_B", nlohmann::json()).dump()).first;
    o.a = end(p, 0);
    o.b = end(p, 1);
    if (p.status != ProbeStatus::ok) {
      o.state = HealthState::failed;
      o.reason = Reason{ReasonCode::PROBE_TIMEOUT, p.error.value_or(""), "", std::nullopt, std::nullopt};
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<Step> run_rank0_path(int hosts, CheckPreset preset, const std::string& dir, const std::string& keep) {
  testing::FleetPayloadShape shape;
  shape.fleet.hosts = hosts;
  const PresetDefaults defaults = preset_defaults(preset);
  shape.bw_sizes = defaults.bw_sizes;
  shape.allreduce_sizes = defaults.allreduce_sizes;
  shape.broken_host = 3;
  std::vector<Step> steps;
  testing::FleetPayloads sent;
  std::size_t bytes = 0, largest = 0;
  timed(steps, "build payloads (not rank 0)", [&] {
    sent = testing::fleet_payloads(shape);
    for (const auto& p : sent.payloads) {
      bytes += p->size();
      largest = std::max(largest, p->size());
    }
    return std::to_string(sent.payloads.size()) + " ranks, " + std::to_string(sent.results) + " results (" +
           std::to_string(sent.echoes) + " echoes), " + mib(bytes) + " in all, largest " + kib(largest);
  });
  timed(steps, "parse", [&] {
    std::size_t n = 0;
    for (const auto& p : sent.payloads) n += read_rank_payload(*p).probes.size();
    return std::to_string(n) + " results (parsed and dropped; assemble parses again)";
  });
  Report report;
  timed(steps, "assemble", [&] {
    report = assemble(sent.world, sent.payloads, "within 60 s");
    return std::to_string(report.probes.size()) + " results kept (includes its own parse)";
  });
  sent = {};
  timed(steps, "judge", [&] {
    report.tool = ToolInfo{"ibgpu", "bench", "bench"};
    report.run.id = "bench";
    report.run.started = report.run.finished = "2026-01-01T00:00:00Z";
    const Profile profile = generic_profile();
    report.run.profile = to_json(profile);
    Judgement j = judge(report.hosts, report.probes, profile);
    report.verdicts = std::move(j.verdicts);
    report.summary = std::move(j.summary);
    report.summary.kubernetes = kubernetes_map(report.verdicts);
    return std::to_string(report.verdicts.size()) + " verdicts, exit " + std::to_string(report.summary.exit_code) +
           " (includes its own localise)";
  });
  timed(steps, "localise", [&] {
    std::set<std::string> groups;
    const auto observations = observations_of(report.probes, groups);
    const auto blames = localise(observations);
    return std::to_string(observations.size()) + " observations, " + std::to_string(blames.size()) + " blamed";
  });
  for (const auto& format : reporter_formats())
    timed(steps, "render " + format, [&] {
      bench::CountingBuf buf;
      std::ostream out(&buf);
      make_reporter(format)->render(report, out);
      return mib(buf.count);
    });
  const std::string path = keep.empty() ? dir + "/rank0_bench_report.json" : keep;
  timed(steps, "write json file (compact)", [&] {
    write_atomically(path, [&](std::ostream& out) { JsonReporter(JsonReporter::Layout::compact).render(report, out); });
    std::FILE* f = std::fopen(path.c_str(), "rb");
    std::fseek(f, 0, SEEK_END);
    const long size = std::ftell(f);
    std::fclose(f);
    if (keep.empty()) std::remove(path.c_str());
    return mib(static_cast<std::size_t>(size)) + " file";
  });
  return steps;
}

void print(int hosts, const std::vector<Step>& steps) {
  double total = 0;
  for (std::size_t i = 1; i < steps.size(); ++i) total += steps[i].cpu_s;
  std::cout << hosts << " hosts x 8 ranks, peers:16\n"
            << "  step                          CPU s   peak MiB\n";
  for (const auto& s : steps)
    std::cout << "  " << std::left << std::setw(28) << s.name << std::right << std::fixed << std::setprecision(2)
              << std::setw(8) << s.cpu_s << std::setw(11) << std::setprecision(0) << s.peak_mib << "   " << s.note
              << "\n";
  std::cout << "  rank 0 in all (parse counted twice) " << std::setprecision(2) << total << " s\n" << std::flush;
}

// One host count in a child process (its own peak memory); the steps come back through a pipe.
std::vector<Step> run_in_child(int hosts, CheckPreset preset, const std::string& dir, const std::string& keep) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    const auto steps = run_rank0_path(hosts, preset, dir, keep);
    print(hosts, steps);
    std::ostringstream text;
    text << std::setprecision(17);
    for (const auto& s : steps) text << s.cpu_s << ' ' << s.peak_mib << ' ' << s.name << '\n';
    const std::string bytes = text.str();
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = write(fds[1], bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::string bytes;
  char chunk[4096];
  for (ssize_t n; (n = read(fds[0], chunk, sizeof chunk)) > 0;) bytes.append(chunk, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  std::vector<Step> steps;
  std::istringstream lines(bytes);
  Step s;
  while (lines >> s.cpu_s >> s.peak_mib && std::getline(lines >> std::ws, s.name)) steps.push_back(s);
  return steps;
}

}  // namespace

int main(int argc, char** argv) {
  CheckPreset preset = CheckPreset::standard;
  std::string dir = ".";
  std::string out;
  std::vector<int> counts;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--preset" && i + 1 < argc) {
      const std::string_view name = argv[++i];
      if (name != "standard" && name != "full") counts = {-1};
      preset = name == "full" ? CheckPreset::full : CheckPreset::standard;
    } else if (arg == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (arg == "--out" && i + 1 < argc) {
      out = argv[++i];
    } else {
      counts.push_back(std::atoi(argv[i]));
    }
  }
  if (counts.empty()) counts = {256, 1024};
  for (int n : counts)
    if (n < 4 || n % 2) {
      std::cerr << "usage: ibgpu_rank0_bench [--preset standard|full] [--dir DIR] [--out FILE] hosts... (even, >= 4)\n";
      return 64;
    }
  std::map<int, std::vector<Step>> runs;
  for (int n : counts) {
    const std::string kept = out.empty() || counts.size() == 1 ? out : out + "." + std::to_string(n);
    runs[n] = run_in_child(n, preset, dir, kept);
    if (runs[n].empty()) {
      std::cerr << "the run at " << n << " hosts failed\n";
      return 1;
    }
  }
  if (runs.size() < 2) return 0;
  // CPU time ~ hosts^k between neighbouring counts: 1 is linear, 2 quadratic.
  std::cout << "growth exponent of CPU time (k in hosts^k)\n  step                        ";
  for (auto it = std::next(runs.begin()); it != runs.end(); ++it)
    std::cout << std::setw(12) << std::to_string(std::prev(it)->first) + "->" + std::to_string(it->first);
  std::cout << "\n";
  const auto& first = runs.begin()->second;
  for (std::size_t i = 0; i < first.size(); ++i) {
    std::cout << "  " << std::left << std::setw(28) << first[i].name << std::right;
    for (auto it = std::next(runs.begin()); it != runs.end(); ++it) {
      const auto& a = std::prev(it)->second;
      const auto& b = it->second;
      const double ratio = std::log(static_cast<double>(it->first) / std::prev(it)->first);
      const bool measurable = i < a.size() && i < b.size() && a[i].cpu_s > 0.005 && b[i].cpu_s > 0;
      std::cout << std::setw(12) << std::fixed << std::setprecision(2)
                << (measurable ? std::log(b[i].cpu_s / a[i].cpu_s) / ratio : NAN);
    }
    std::cout << "\n";
  }
  return 0;
}
