#pragma once
// What judging reads of each probe result, read in one walk. A fleet's
// results lie scattered on the heap (4096 hosts x 8 rails: ~170k of them):
// every walk over them waits on memory, and every name hashed or compared
// costs again. The judge's steps read these facts instead: small,
// contiguous, names as dense ids. Pure; views into the results, which must
// outlive the facts.
#include <cstdint>
#include <string_view>
#include <vector>

#include "health/name_ids.h"
#include "probes/result.h"

namespace ibgpu {

// What a probe id says about its results, worked out once per distinct id.
struct ProbeTraits {
  bool network = false;      // net.*: a pair probe when between two hosts
  bool bandwidth = false;    // net.*_bw, net.*.bw
  bool latency = false;      // net.*_lat, net.*.lat
  bool verbs = false;        // net.verbs.*
  bool allreduce = false;    // collective.*.all_reduce
  bool gpu_copy_bw = false;  // gpu.cuda.copy_bw
  bool gpu_mem_bw = false;   // gpu.cuda.mem_bw
  bool local = false;        // judged by local health (is_local_probe)
};

// Which number of an ok result is judged (health/thresholds.h), if any.
enum class Judged : std::uint8_t { none, pair_bandwidth, pair_latency, allreduce, gpu_copy_bw, gpu_mem_bw };

struct ResultFact {
  static constexpr std::uint32_t kNone = NameIds::kNone;
  std::uint32_t probe = 0;  // the probe id, into ResultFacts::probe_ids() and traits()
  ProbeStatus status = ProbeStatus::ok;
  std::uint32_t host_count = 0;                 // scope.hosts.size()
  std::uint32_t host[2] = {kNone, kNone};       // scope.hosts[0] and [1], into hosts()
  std::uint32_t device[2] = {kNone, kNone};     // of a two-device scope (a pair's rails), into devices()
  std::int32_t rank[2] = {-1, -1};              // of a two-rank scope
  Judged judged = Judged::none;
  // Of a judged result: its params and numbers. A latency result's numbers
  // are p50 and p99 (of a summary), a copy's the slower direction.
  bool has_size = false, has_nranks = false, in_place = false, retest = false;
  bool has_value[2] = {false, false};
  std::uint32_t direction = kNone;  // params.direction, into directions()
  std::uint64_t size = 0;           // params.size_B
  std::int64_t nranks = 0;          // params.nranks
  double value[2] = {0, 0};
};

class ResultFacts {
 public:
  explicit ResultFacts(const std::vector<ProbeResult>& probes);

  std::size_t size() const { return facts_.size(); }
  const ResultFact& operator[](std::size_t i) const { return facts_[i]; }
  auto begin() const { return facts_.begin(); }
  auto end() const { return facts_.end(); }
  const ProbeTraits& traits(const ResultFact& f) const { return traits_[f.probe]; }
  bool is_pair(const ResultFact& f) const { return traits(f).network && f.host_count == 2; }

  const NameIds& probe_ids() const { return probe_ids_; }
  const NameIds& hosts() const { return hosts_; }
  const NameIds& devices() const { return devices_; }
  const NameIds& directions() const { return directions_; }

 private:
  void read_judged(ResultFact& f, const ProbeResult& p);

  std::vector<ResultFact> facts_;
  std::vector<ProbeTraits> traits_;  // by probe id
  NameIds probe_ids_, hosts_, devices_, directions_;
};

}  // namespace ibgpu
