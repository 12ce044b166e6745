#include "health/profile_file.h"

#include <toml++/toml.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "core/bounded_input.h"

namespace ibgpu {

namespace fs = std::filesystem;

namespace {

// Walks one table, hands each known key to its reader and refuses the rest,
// so a typo in a threshold is an error rather than a silently unset limit.
class TableReader {
 public:
  TableReader(const toml::table& table, std::string origin, std::string path)
      : table_(table), origin_(std::move(origin)), path_(std::move(path)) {}

  [[noreturn]] void fail(const toml::node& node, const std::string& what) const {
    throw ProfileError(origin_ + ":" + std::to_string(node.source().begin.line) + ": " + what);
  }

  std::string key_name(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  void on(const std::string& key, std::function<void(const toml::node&)> read) { readers_[key] = std::move(read); }

  void read() {
    for (auto&& [key, node] : table_) {
      auto it = readers_.find(std::string(key.str()));
      if (it == readers_.end()) fail(node, "unknown key '" + key_name(std::string(key.str())) + "'");
      it->second(node);
    }
  }

  TableReader sub(const toml::node& node, const std::string& key) const {
    if (!node.is_table()) fail(node, "'" + key_name(key) + "' must be a table");
    return TableReader(*node.as_table(), origin_, key_name(key));
  }

  double number(const toml::node& node, const std::string& key) const {
    if (!node.is_number()) fail(node, "'" + key_name(key) + "' must be a number");
    // TOML has nan and inf; a limit of either compares false with everything and judges nothing.
    const double v = *node.value<double>();
    if (!std::isfinite(v)) fail(node, "'" + key_name(key) + "' must be a finite number");
    return v;
  }

  int integer(const toml::node& node, const std::string& key, std::int64_t min = 0) const {
    if (!node.is_integer()) fail(node, "'" + key_name(key) + "' must be an integer");
    const std::int64_t v = *node.value<std::int64_t>();
    if (v < min || v > (std::int64_t{1} << 40)) fail(node, "'" + key_name(key) + "' out of range");
    return static_cast<int>(std::min<std::int64_t>(v, std::numeric_limits<int>::max()));
  }

  std::size_t size(const toml::node& node, const std::string& key) const {
    if (!node.is_integer() || *node.value<std::int64_t>() < 1)
      fail(node, "'" + key_name(key) + "' must be a positive integer (bytes)");
    return static_cast<std::size_t>(*node.value<std::int64_t>());
  }

  std::string text(const toml::node& node, const std::string& key) const {
    if (!node.is_string()) fail(node, "'" + key_name(key) + "' must be a string");
    return *node.value<std::string>();
  }

  bool boolean(const toml::node& node, const std::string& key) const {
    if (!node.is_boolean()) fail(node, "'" + key_name(key) + "' must be true or false");
    return *node.value<bool>();
  }

 private:
  const toml::table& table_;
  std::string origin_, path_;
  std::map<std::string, std::function<void(const toml::node&)>> readers_;
};

void read_limit(TableReader& parent, const std::string& key, Limit& out, LimitSense sense) {
  parent.on(key, [&parent, key, &out, sense](const toml::node& node) {
    TableReader t = parent.sub(node, key);
    const std::string name = t.key_name("");
    t.on("failed", [&](const toml::node& n) {
      out.failed = t.number(n, "failed");
      if (*out.failed < 0) t.fail(n, "'" + t.key_name("failed") + "' must not be negative");
    });
    t.on("degraded", [&](const toml::node& n) {
      out.degraded = t.number(n, "degraded");
      if (*out.degraded < 0) t.fail(n, "'" + t.key_name("degraded") + "' must not be negative");
    });
    t.read();
    if (out.failed && out.degraded) {
      if (sense == LimitSense::floor && *out.degraded < *out.failed)
        t.fail(node,
               "'" + parent.key_name(key) + "': degraded level below the failed floor (a floor: degraded >= failed)");
      if (sense == LimitSense::ceiling && *out.degraded > *out.failed)
        t.fail(node, "'" + parent.key_name(key) +
                         "': degraded level above the failed ceiling (a ceiling: degraded <= failed)");
    }
  });
}

void read_profile(const toml::table& root, const std::string& origin, Profile& p) {
  constexpr auto floor = LimitSense::floor;
  constexpr auto ceiling = LimitSense::ceiling;
  TableReader top(root, origin, "");
  top.on("name", [&](const toml::node& n) { p.name = top.text(n, "name"); });
  top.on("description", [&](const toml::node& n) { p.description = top.text(n, "description"); });
  top.on("node", [&](const toml::node& n) {
    TableReader t = top.sub(n, "node");
    t.on("expect_gpus", [&](const toml::node& v) { p.node.expect_gpus = t.integer(v, "expect_gpus"); });
    t.on("expect_active_ports",
         [&](const toml::node& v) { p.node.expect_active_ports = t.integer(v, "expect_active_ports"); });
    t.on("port_rate_gbps", [&](const toml::node& v) { p.node.port_rate_gbps = t.number(v, "port_rate_gbps"); });
    t.on("port_width", [&](const toml::node& v) { p.node.port_width = t.integer(v, "port_width", 1); });
    t.on("exclude_rail_with_gpu",
         [&](const toml::node& v) { p.node.exclude_rail_with_gpu = t.boolean(v, "exclude_rail_with_gpu"); });
    t.read();
  });
  top.on("counters", [&](const toml::node& n) {
    TableReader t = top.sub(n, "counters");
    auto rate = [&](const char* key, double& out) {
      t.on(key, [&t, &out, key](const toml::node& v) {
        out = t.number(v, key);
        if (out < 0) t.fail(v, "'counters." + std::string(key) + "' must not be negative");
      });
    };
    rate("symbol_error_per_hour_degraded", p.counters.symbol_error_per_hour_degraded);
    rate("link_error_recovery_per_hour_degraded", p.counters.link_error_recovery_per_hour_degraded);
    rate("port_rcv_errors_per_hour_degraded", p.counters.port_rcv_errors_per_hour_degraded);
    rate("local_link_integrity_errors_per_hour_degraded", p.counters.local_link_integrity_errors_per_hour_degraded);
    rate("excessive_buffer_overrun_errors_per_hour_degraded",
         p.counters.excessive_buffer_overrun_errors_per_hour_degraded);
    t.on("link_down_events_degraded", [&](const toml::node& v) {
      p.counters.link_down_events_degraded = t.integer(v, "link_down_events_degraded", 1);
    });
    t.read();
  });
  top.on("network", [&](const toml::node& n) {
    TableReader t = top.sub(n, "network");
    t.on("bw_min_size_B", [&](const toml::node& v) { p.network.bw_min_size_B = t.size(v, "bw_min_size_B"); });
    read_limit(t, "verbs_bw_GBps", p.network.verbs_bw_GBps, floor);
    read_limit(t, "mpi_bw_GBps", p.network.mpi_bw_GBps, floor);
    read_limit(t, "lat_p50_us", p.network.lat_p50_us, ceiling);
    read_limit(t, "lat_p99_us", p.network.lat_p99_us, ceiling);
    t.read();
  });
  top.on("allreduce", [&](const toml::node& n) {
    TableReader t = top.sub(n, "allreduce");
    t.on("backend", [&](const toml::node& v) {
      const std::string backend = t.text(v, "backend");
      if (backend != "nccl" && backend != "mpi") t.fail(v, "'allreduce.backend' must be \"nccl\" or \"mpi\"");
      p.allreduce.backend = backend == "mpi" ? Transport::mpi : Transport::nccl;
    });
    t.on("min_size_B", [&](const toml::node& v) { p.allreduce.min_size_B = t.size(v, "min_size_B"); });
    t.on("network", [&](const toml::node& v) { p.allreduce.network = t.text(v, "network"); });
    read_limit(t, "node_busbw_GBps", p.allreduce.node_busbw_GBps, floor);
    read_limit(t, "rail_busbw_GBps", p.allreduce.rail_busbw_GBps, floor);
    read_limit(t, "domain_busbw_GBps", p.allreduce.domain_busbw_GBps, floor);
    t.read();
  });
  top.on("gpu", [&](const toml::node& n) {
    TableReader t = top.sub(n, "gpu");
    read_limit(t, "copy_bw_GBps", p.gpu.copy_bw_GBps, floor);
    read_limit(t, "mem_bw_GBps", p.gpu.mem_bw_GBps, floor);
    t.on("temp_degraded_C", [&](const toml::node& v) { p.gpu.temp_degraded_C = t.number(v, "temp_degraded_C"); });
    t.on("temp_failed_C", [&](const toml::node& v) { p.gpu.temp_failed_C = t.number(v, "temp_failed_C"); });
    t.on("require_persistence_mode",
         [&](const toml::node& v) { p.gpu.require_persistence_mode = t.boolean(v, "require_persistence_mode"); });
    t.on("nvlink_links", [&](const toml::node& v) {
      p.gpu.nvlink_links = t.integer(v, "nvlink_links");
      // NVML counts at most 36 links a GPU (NVML_NVLINK_MAX_LINKS since NVML 13).
      if (*p.gpu.nvlink_links > 36) t.fail(v, "'gpu.nvlink_links' must be at most 36 (NVML's most links a GPU)");
    });
    t.on("nvlink_speed_MBps", [&](const toml::node& v) { p.gpu.nvlink_speed_MBps = t.number(v, "nvlink_speed_MBps"); });
    t.on("nvlink_fabric", [&](const toml::node& v) { p.gpu.nvlink_fabric = t.boolean(v, "nvlink_fabric"); });
    t.on("imex_channel", [&](const toml::node& v) { p.gpu.imex_channel = t.boolean(v, "imex_channel"); });
    t.on("imex_service", [&](const toml::node& v) { p.gpu.imex_service = t.boolean(v, "imex_service"); });
    // Counts at or above which a GPU is degraded (each an optional<int> of GpuLimits).
    const std::pair<const char*, std::optional<int> GpuLimits::*> counted[]{
        {"nvlink_recoveries_degraded", &GpuLimits::nvlink_recoveries_degraded},
        {"nvlink_errors_degraded", &GpuLimits::nvlink_errors_degraded}};
    for (const auto& [name, member] : counted)
      t.on(name,
           [&, key = std::string(name), field = member](const toml::node& v) { p.gpu.*field = t.integer(v, key, 1); });
    t.read();
  });
  top.on("fleet", [&](const toml::node& n) {
    TableReader t = top.sub(n, "fleet");
    t.on("enabled", [&](const toml::node& v) { p.fleet.enabled = t.boolean(v, "enabled"); });
    // The keys before the reference was the good quartile (..._of_median) still read.
    auto bw_fraction = [&](const char* key) {
      t.on(key, [&p, &t, key](const toml::node& v) {
        p.fleet.bw_fraction = t.number(v, key);
        if (p.fleet.bw_fraction <= 0 || p.fleet.bw_fraction > 1) t.fail(v, "'fleet.bw_fraction' must be in (0, 1]");
      });
    };
    auto lat_multiple = [&](const char* key) {
      t.on(key, [&p, &t, key](const toml::node& v) {
        p.fleet.lat_multiple = t.number(v, key);
        if (p.fleet.lat_multiple < 1) t.fail(v, "'fleet.lat_multiple' must be at least 1");
      });
    };
    bw_fraction("bw_fraction");
    bw_fraction("bw_fraction_of_median");
    lat_multiple("lat_multiple");
    lat_multiple("lat_multiple_of_median");
    t.on("bw_fraction_widest", [&](const toml::node& v) {
      p.fleet.bw_fraction_widest = t.number(v, "bw_fraction_widest");
      if (p.fleet.bw_fraction_widest <= 0 || p.fleet.bw_fraction_widest > 1)
        t.fail(v, "'fleet.bw_fraction_widest' must be in (0, 1]");
    });
    t.on("bw_fraction_failed", [&](const toml::node& v) {
      p.fleet.bw_fraction_failed = t.number(v, "bw_fraction_failed");
      if (p.fleet.bw_fraction_failed < 0 || p.fleet.bw_fraction_failed >= 1)
        t.fail(v, "'fleet.bw_fraction_failed' must be in [0, 1) (0: no failed level)");
    });
    t.on("min_fleet_size", [&](const toml::node& v) { p.fleet.min_fleet_size = t.integer(v, "min_fleet_size", 2); });
    t.read();
  });
  top.on("confidence", [&](const toml::node& n) {
    TableReader t = top.sub(n, "confidence");
    t.on("drain_weak", [&](const toml::node& v) { p.confidence.drain_weak = t.boolean(v, "drain_weak"); });
    t.on("default_noise", [&](const toml::node& v) {
      p.confidence.default_noise = t.number(v, "default_noise");
      if (p.confidence.default_noise <= 0 || p.confidence.default_noise > 1)
        t.fail(v, "'confidence.default_noise' must be in (0, 1]");
    });
    t.read();
  });
  top.on("burn_in", [&](const toml::node& n) {
    TableReader t = top.sub(n, "burn_in");
    // A state an entity can be judged in: degraded (admitted, flagged) or failed (drained).
    auto state = [&t](const toml::node& v, const char* key) {
      const std::string text = t.text(v, key);
      if (text == "degraded") return HealthState::degraded;
      if (text == "failed") return HealthState::failed;
      t.fail(v, "'burn_in." + std::string(key) + "' must be \"degraded\" or \"failed\"");
    };
    t.on("flaky_state", [&](const toml::node& v) { p.burn_in.flaky_state = state(v, "flaky_state"); });
    t.on("flaky_min_rounds",
         [&](const toml::node& v) { p.burn_in.flaky_min_rounds = t.integer(v, "flaky_min_rounds", 1); });
    t.on("seen_once_state", [&](const toml::node& v) { p.burn_in.seen_once_state = state(v, "seen_once_state"); });
    t.on("drop_fraction", [&](const toml::node& v) {
      p.burn_in.drop_fraction = t.number(v, "drop_fraction");
      if (p.burn_in.drop_fraction <= 0 || p.burn_in.drop_fraction >= 1)
        t.fail(v, "'burn_in.drop_fraction' must be in (0, 1)");
    });
    t.on("drift_state", [&](const toml::node& v) { p.burn_in.drift_state = state(v, "drift_state"); });
    t.on("drift_fraction", [&](const toml::node& v) {
      p.burn_in.drift_fraction = t.number(v, "drift_fraction");
      if (p.burn_in.drift_fraction <= 0 || p.burn_in.drift_fraction >= 1)
        t.fail(v, "'burn_in.drift_fraction' must be in (0, 1)");
    });
    t.on("drift_min_rounds",
         [&](const toml::node& v) { p.burn_in.drift_min_rounds = t.integer(v, "drift_min_rounds", 4); });
    t.read();
  });
  top.on("history", [&](const toml::node& n) {
    TableReader t = top.sub(n, "history");
    // Flapping is two spells of bad checks at least, so a clean one between: 3 checks, 2 bad.
    t.on("window", [&](const toml::node& v) { p.history.window = t.integer(v, "window", 3); });
    t.on("flapping_bad", [&](const toml::node& v) { p.history.flapping_bad = t.integer(v, "flapping_bad", 2); });
    t.on("transient_clean",
         [&](const toml::node& v) { p.history.transient_clean = t.integer(v, "transient_clean", 0); });
    t.on("lemon_days", [&](const toml::node& v) {
      p.history.lemon_days = t.number(v, "lemon_days");
      if (p.history.lemon_days < 0 || p.history.lemon_days > 3650)
        t.fail(v, "'history.lemon_days' must be in [0, 3650] (0: off)");
    });
    t.read();
    if (p.history.transient_clean > kHistoryMaxWindow)
      t.fail(n, "'history.transient_clean' must be at most " + std::to_string(kHistoryMaxWindow));
    if (p.history.window > kHistoryMaxWindow)
      t.fail(n, "'history.window' must be at most " + std::to_string(kHistoryMaxWindow));
    if (p.history.flapping_bad > p.history.window)
      t.fail(n, "'history.flapping_bad' must not be over 'history.window'");
  });
  top.read();
}

bool looks_like_path(const std::string& spec) {
  return spec.find('/') != std::string::npos || (spec.size() > 5 && spec.substr(spec.size() - 5) == ".toml");
}

}  // namespace

Profile parse_profile(const std::string& text, const std::string& origin) {
  Profile p;
  p.source = origin;
  // toml++ recurses once per part of a dotted key or table header: bound the input before it.
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '\n') continue;
    if (i - line_start > kProfileMaxLine)
      throw ProfileError(origin + ":" + std::to_string(line) + ": line longer than " + std::to_string(kProfileMaxLine) +
                         " characters");
    ++line;
    line_start = i + 1;
  }
  if (text.size() > kProfileMaxBytes) throw ProfileError(origin + ": larger than a profile can be");
  toml::table root;
  try {
    root = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw ProfileError(origin + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  // An empty profile would judge with no expectations under a name of its own: say so instead.
  if (root.empty())
    throw ProfileError(origin + ": the profile sets nothing (for no expectations, use --profile generic)");
  read_profile(root, origin, p);
  return p;
}

Profile load_profile_file(const fs::path& path) {
  std::string text;
  try {
    text = read_bounded_file(path.string(), kProfileMaxBytes);
  } catch (const InputError& e) {
    throw ProfileError(e.what());
  }
  return parse_profile(text, path.string());
}

std::vector<fs::path> profile_search_dirs(const fs::path& exe_dir) {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("IBGPU_PROFILE_DIR"); env && *env) dirs.emplace_back(env);
  if (!exe_dir.empty()) dirs.push_back(exe_dir / ".." / "share" / "ibgpu" / "profiles");
#ifdef IBGPU_SOURCE_DIR
  dirs.push_back(fs::path(IBGPU_SOURCE_DIR) / "profiles");
#endif
  return dirs;
}

Profile resolve_profile(const std::string& spec, const std::vector<fs::path>& dirs) {
  if (spec.empty()) throw ProfileError("--profile: empty profile name");
  if (looks_like_path(spec)) {
    std::error_code ec;
    if (!fs::exists(spec, ec)) throw ProfileError("--profile " + spec + ": no such profile file");
    return load_profile_file(spec);
  }
  std::string searched;
  for (const auto& dir : dirs) {
    const fs::path candidate = dir / (spec + ".toml");
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return load_profile_file(candidate);
    searched += (searched.empty() ? "" : ", ") + dir.lexically_normal().string();
  }
  if (spec == "generic") return generic_profile();
  // The names there are, so a mistyped one is seen at once (a folder of a few files: the first 64).
  std::set<std::string> names{"generic"};
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end && names.size() < 64; it.increment(ec))
      if (it->path().extension() == ".toml") names.insert(it->path().stem().string());
  }
  std::string known;
  for (const auto& name : names) known += (known.empty() ? "" : ", ") + name;
  throw ProfileError("--profile " + spec + ": no profile of that name (profiles: " + known + "; looked for " + spec +
                     ".toml in " + (searched.empty() ? std::string("no directory") : searched) +
                     "; set IBGPU_PROFILE_DIR or give a file path)");
}

}  // namespace ibgpu
