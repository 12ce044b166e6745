#include <charconv>

#include "core/errors.h"
#include "core/units.h"
#include "subcommand.h"

namespace ibgpu::cli {

std::vector<std::size_t> sizes_or_sweep(const std::string& list, const std::string& min, const std::string& max,
                                        const std::vector<std::size_t>& fallback, std::size_t factor) {
  try {
    if (!list.empty() && (!min.empty() || !max.empty()))
      throw UsageError(std::string("--sizes with ") + (min.empty() ? "--max" : "--min") +
                       ": give a list (--sizes) or a sweep (--min and --max), not both");
    if (!list.empty()) return parse_sizes(list);
    if (min.empty() != max.empty())
      throw UsageError(min.empty() ? "--max needs --min: a sweep has two ends (or give --sizes)"
                                   : "--min needs --max: a sweep has two ends (or give --sizes)");
    if (!min.empty()) return size_sweep(parse_size(min), parse_size(max), factor);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return fallback;
}

CLI::Validator non_empty_list() {
  return CLI::Validator([](std::string& v) { return v.empty() ? std::string("an empty list") : std::string(); }, "");
}

int parse_peer_count(const std::string& plan) {
  const std::string digits = plan.substr(plan.find(':') + 1);
  int k = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() || k < 1)
    throw UsageError("--pairs " + plan + ": expected peers:K with K a whole number of peers >= 1, e.g. peers:16");
  return k;
}

void add_net_options(CLI::App& sub, NetOptions& net, NetCliText& text) {
  // Only what the command measures: latency has no window of sends in flight. The defaults are
  // net.settings' as the caller set them.
  const NetSettings& d = net.settings;
  const bool bw = net.bandwidth, lat = net.latency;
  text.transport = to_string(net.transport);
  text.mem = to_string(net.settings.mem);
  sub.add_option("--transport", text.transport,
                 "verbs (RDMA writes on the HCAs), mpi (MPI point-to-point: the host network), or auto "
                 "(verbs where both ends have an active port, else mpi; the report says which ran)")
      ->check(CLI::IsMember({"verbs", "mpi", "auto"}))
      ->capture_default_str();
  sub.add_option("--sizes", text.sizes,
                 "Message sizes, e.g. 8,64K,8M (default: " +
                     (bw && lat ? "bandwidth " + format_sizes(d.bw_sizes) + ", latency " + format_sizes(d.lat_sizes)
                                : format_sizes(bw ? d.bw_sizes : d.lat_sizes)) +
                     ")")
      ->type_name("LIST")
      ->check(non_empty_list());
  // Hidden, for tests: this rank's verbs setups fail as a fault of ibgpu's own would (the controls).
  sub.add_option("--test-verbs-error-rank", net.settings.test_verbs_error_rank)->group("");
  sub.add_option("--min", text.min, "Smallest size of a doubling sweep (with --max)")->type_name("SIZE");
  sub.add_option("--max", text.max, "Largest size of a doubling sweep")->type_name("SIZE");
  const std::string fitted = "fitted per size to a byte budget";
  const std::string iters_default = bw && lat ? "bandwidth " + fitted + ", latency " + std::to_string(d.lat_iters)
                                    : bw      ? fitted
                                              : std::to_string(d.lat_iters);
  sub.add_option("--iters", text.iters, "Timed iterations per size (default: " + iters_default + "; 0: the default)")
      ->check(whole_number(0));
  sub.add_option("--warmup", net.settings.warmup, "Untimed iterations first (default 0: a tenth of --iters)")
      ->check(whole_number(0));
  sub.add_option("--pairs", text.pairs,
                 "all: every host pair in N-1 concurrent rounds; quick: one round, every host once; "
                 "peers:K: K rounds in which every host meets K distinct peers spread over the host list "
                 "(then re-tests pair suspects with known-good hosts); or a list of host indices 0-1,2-3")
      ->capture_default_str();
  sub.add_flag("--loopback", net.pairs.loopback,
               "Also pair ranks on the same host (tests a host's own path; always so when all ranks are on one host)");
  sub.add_option("--hca", net.hca,
                 "Rails to use, e.g. mlx5_0:1,mlx5_3:1 (default: each rank's rail, else every active port); a device "
                 "the host does not have is refused before anything runs")
      ->delimiter(',')
      ->type_name("DEV:PORT");
  sub.add_option("--gid-index", net.settings.gid_index, "RoCE GID index (default: IPv4-mapped RoCE v2)");
  sub.add_option("--mem", text.mem, "Where verbs buffers live: host, gpu (GPUDirect RDMA), auto")
      ->check(CLI::IsMember({"host", "gpu", "auto"}))
      ->capture_default_str();
  sub.add_option("--time-cap", net.settings.time_cap_s,
                 "Longest run of one measurement (a pair at one size; in check, an all-reduce size too), in "
                 "seconds: a crawling link is measured, not waited for; the rate reached when it runs out is "
                 "the result, with params.time_capped_s in the report. What is under way still lands: the "
                 "iteration in flight and, if the cap ran out in the warmup, one timed iteration, each paced "
                 "to fit (MPI bandwidth windows shortened on a crawling link; an all-reduce size that cannot "
                 "fit one iteration is not run)")
      ->type_name("SECONDS")
      ->check(finite_range(0.01, 86400.0))
      ->capture_default_str();
  if (!bw) return;
  sub.add_option("--window", net.settings.window,
                 "MPI bandwidth: sends in flight per iteration, all received into one buffer (osu_bw's "
                 "layout; params.recv_layout)")
      ->check(whole_number(1))
      ->capture_default_str();
  sub.add_option("--tx-depth", net.settings.tx_depth, "Verbs bandwidth: work requests in flight")
      ->check(whole_number(1))
      ->capture_default_str();
}

void finish_net_options(NetOptions& net, const NetCliText& text) {
  // CLI::IsMember let only the enums' own words through.
  net.transport = *net_transport_from_string(text.transport);
  net.settings.mem = *buffer_memory_from_string(text.mem);
  net.settings.bw_sizes = sizes_or_sweep(text.sizes, text.min, text.max, net.settings.bw_sizes, 2);
  net.settings.lat_sizes = sizes_or_sweep(text.sizes, text.min, text.max, net.settings.lat_sizes, 2);
  validate_sizes(net.settings.bw_sizes, "bandwidth");
  validate_sizes(net.settings.lat_sizes, "latency");
  if (text.iters > 0) {
    net.settings.bw_iters = text.iters;
    net.settings.lat_iters = text.iters;
  }
  if (text.pairs == "all") {
    net.pairs.mode = PairMode::all;
  } else if (text.pairs == "quick") {
    net.pairs.mode = PairMode::quick;
  } else if (text.pairs.starts_with("peers:")) {
    net.pairs.mode = PairMode::peers;
    net.pairs.peers = parse_peer_count(text.pairs);
  } else {
    net.pairs.mode = PairMode::list;
    try {
      net.pairs.list = parse_pair_list(text.pairs);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--pairs: ") + e.what());
    }
  }
}

}  // namespace ibgpu::cli
