#pragma once
// Per-metric rules: which number of a probe result is judged, against which
// limit of the profile, under which reason codes. Pure.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "health/profile.h"
#include "health/result_facts.h"
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
  std::uint32_t kind_index = 0;     // in the MeasurementKinds it was interned in (order of first mention)
  LimitSense sense = LimitSense::floor;
  bool retest = false;              // a re-test (params "retest"): judged, but not part of the fleet median
  const ResultFact* fact = nullptr; // what was read of the probe: hosts and rails as ids
};

// The kinds measurements name, each text held once: a fleet has ~10^5
// measurements of a handful of kinds. Node-based: the views it hands out stay
// valid as it grows and when it moves.
class MeasurementKinds {
 public:
  // The kind's text as held here, and its index (order of first mention).
  std::pair<std::string_view, std::uint32_t> intern(std::string_view kind);
  const std::vector<std::string_view>& list() const { return views_; }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> index_;
  std::vector<std::string_view> views_;
};

// Calls visit(m) for every judged number of the ok results, in order. Bandwidths
// are judged at large messages only: from the profile's minimum size, or the
// largest size a probe id was run at when none reached it. `facts` are of
// `probes`. Measurements point into `facts`, `probes`, `profile` and `kinds`,
// which must outlive them.
void for_each_measurement(const ResultFacts& facts, const std::vector<ProbeResult>& probes, const Profile& profile,
                          MeasurementKinds& kinds, const std::function<void(const Measurement&)>& visit);

// The measurements of a run, with the kinds and facts they name. Move-only:
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

 private:
  friend Measurements extract_measurements(const std::vector<ProbeResult>&, const Profile&);
  std::vector<Measurement> list_;
  MeasurementKinds kinds_;
  std::unique_ptr<ResultFacts> facts_;
};

// for_each_measurement, collected. `probes` and `profile` must outlive the result.
Measurements extract_measurements(const std::vector<ProbeResult>& probes, const Profile& profile);

struct Finding {
  HealthState state = HealthState::healthy;
  std::optional<Reason> reason;
};

// Against the profile's absolute limits.
Finding judge_absolute(const Measurement& m);

bool is_pair_probe(const ProbeResult& p);        // net.* between two hosts
bool is_allreduce_probe(const ProbeResult& p);   // collective.*.all_reduce

// The entity a measurement of `p` speaks for: the GPU of a one-GPU result,
// the node of another one-host result, the link between two hosts (or a
// pseudo-link naming the first and last of more).
Entity measured_entity(const ProbeResult& p);

// "cuda:3" / "GPU3" / "gpu3" -> "gpu3"; anything else unchanged.
std::string gpu_name(const std::string& device);

std::string format_value(double v);

}  // namespace ibgpu
