#pragma once
// Per-metric rules: which number of a probe result is judged, against which
// limit of the profile, under which reason codes. Pure.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "health/profile.h"
#include "health/verdict.h"
#include "probes/result.h"

namespace ibgpu {

// One judged number of one probe result. A fleet has ~10^5 of them: they stay small.
struct Measurement {
  const ProbeResult* probe = nullptr;
  std::string_view kind;            // fleet group, held by Measurements: "net.verbs.write_bw@8388608:bw_avg_GBps"
  double value = 0;
  const char* metric = "";          // "bw_avg_GBps", "lat_us.p99", ...
  const Limit* limit = nullptr;     // in the profile the measurements were extracted with
  const char* low_code = "";        // below a floor / above a ceiling: IB_LINK_BW_LOW, LAT_HIGH, ...
  const char* outlier_code = "";    // against the fleet median: IB_LINK_BW_OUTLIER, LAT_OUTLIER, ...
  std::uint32_t kind_index = 0;     // into Measurements::kinds()
  LimitSense sense = LimitSense::floor;
  bool retest = false;              // a re-test (params "retest"): judged, but not part of the fleet median
};

// The measurements of a run and the kinds they name, each kind's text built
// once: a fleet has ~10^5 measurements of a handful of kinds. Move-only, as
// the measurements view the kinds held here.
class Measurements {
 public:
  Measurements() = default;
  Measurements(Measurements&&) = default;
  Measurements& operator=(Measurements&&) = default;
  Measurements(const Measurements&) = delete;
  Measurements& operator=(const Measurements&) = delete;

  auto begin() const { return list_.begin(); }
  auto end() const { return list_.end(); }
  std::size_t size() const { return list_.size(); }
  const Measurement& operator[](std::size_t i) const { return list_[i]; }
  // Distinct kinds, in order of first mention; Measurement::kind_index indexes them.
  const std::vector<std::string_view>& kinds() const { return kind_views_; }

  void reserve(std::size_t n) { list_.reserve(n); }
  // Adds m with the kind `kind`, held here.
  void add(Measurement m, std::string_view kind);

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<Measurement> list_;
  std::vector<std::string_view> kind_views_;
  // Node-based: a kind's text stays where it is when the map grows or moves.
  std::unordered_map<std::string, std::size_t, Hash, std::equal_to<>> kind_index_;
};

// Every judged number of the ok results. Bandwidths are judged at large
// messages only: from the profile's minimum size, or the largest size a
// probe id was run at when none reached it. The measurements point into
// `probes` and `profile`: both must outlive them.
Measurements extract_measurements(const std::vector<ProbeResult>& probes, const Profile& profile);

struct Finding {
  HealthState state = HealthState::healthy;
  std::optional<Reason> reason;
};

// Against the profile's absolute limits.
Finding judge_absolute(const Measurement& m);

bool is_pair_probe(const ProbeResult& p);        // net.* between two hosts
bool is_allreduce_probe(const ProbeResult& p);   // collective.*.all_reduce
std::optional<std::size_t> size_of(const ProbeResult& p);  // params.size_B

// "cuda:3" / "GPU3" / "gpu3" -> "gpu3"; anything else unchanged.
std::string gpu_name(const std::string& device);

std::string format_value(double v);

}  // namespace ibgpu
