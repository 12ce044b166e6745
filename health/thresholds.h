#pragma once
// Per-metric rules: which number of a probe result is judged, against which
// limit of the profile, under which reason codes. Pure.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/figure_key.h"
#include "core/inventory.h"
#include "core/report.h"
#include "core/result.h"
#include "core/verdict.h"
#include "health/profile.h"

namespace ibgpu {

// One judged number of one probe result.
struct Measurement {
  const ProbeResult* probe = nullptr;
  FigureKey figure;  // the fleet group: "net.verbs.write_bw@8388608:bw_avg_GBps"
  double value = 0;
  const char* metric = "";                         // "bw_avg_GBps", "lat_us.p99", ...
  const Limit* limit = nullptr;                    // in the profile the measurements were extracted with
  ReasonCode low_code = ReasonCode::PROBE_FAILED;  // below a floor / above a ceiling: IB_LINK_BW_LOW, LAT_HIGH, ...
  std::optional<ReasonCode> outlier_code;          // against the fleet: IB_LINK_BW_OUTLIER, ...; none: no fleet rule
  LimitSense sense = LimitSense::floor;
  bool retest = false;  // a re-test (params "retest"): judged, but not part of the fleet median
  // Where the profile has a floor for this figure that does not hold it (another medium or
  // size), why: the figure is compared with the fleet alone.
  std::string floor_not_applied = {};
};

// Every judged number of the ok results, in order. Bandwidths are judged at
// large messages only: from the profile's minimum size, or the largest size a
// probe id was run at when none reached it. The measurements point into
// `probes` and `profile`, which must outlive them.
// The MPI pair floor is for MPI over the RDMA fabric: a pair within one host
// (shared memory) or with an end among `hosts_without_rdma` (no active RDMA
// port: MPI runs over host TCP) is compared with the fleet alone.
std::vector<Measurement> extract_measurements(const std::vector<ProbeResult>& probes, const Profile& profile,
                                              const std::set<std::string>* hosts_without_rdma = nullptr);

// The hosts of an inventory without an active RDMA port.
std::set<std::string> hosts_without_rdma(const std::vector<HostInventory>& hosts);

struct Finding {
  HealthState state = HealthState::healthy;
  std::optional<Reason> reason;
};

// Names the result a reason was read from in the reason (Reason::probe, size_B, port,
// peer_port): its probe id, its message size, and the ports it ran on (a pair's two ends, or
// the one port a port's check measured).
void cite(Reason& reason, const ProbeResult& p);
inline Finding cited(Finding f, const ProbeResult& p) {
  if (f.reason) cite(*f.reason, p);
  return f;
}

// Against the profile's absolute limits.
Finding judge_absolute(const Measurement& m);

// A result's status as the state of what it speaks for, with the reason: ok
// is healthy, skipped unknown (missing because of the node) or, where ibgpu
// itself did not run it, a CHECK_NOT_RUN note that changes no state; anything
// else failed (wrong data named as such).
Finding probe_outcome(const ProbeResult& p);

// A profile that declares none of a device (expect_gpus = 0, expect_active_ports
// = 0) makes a skipped check of that device, for the whole host, expected:
// it is not a finding.
bool absence_expected(const ProbeResult& p, const Profile& profile);

// In a node's own check (RunScope::node) a skipped check that needs other
// hosts (the pairs between hosts), or an all-reduce skipped in a one-rank run
// (nothing to reduce across), is out of scope: it is not a finding.
bool out_of_scope(const ProbeResult& p, RunScope scope, int ranks);

// The entity a measurement of `p` speaks for: the GPU of a one-GPU result,
// the node of another one-host result, the link between two hosts (or a
// pseudo-link naming the first and last of more).
Entity measured_entity(const ProbeResult& p);

}  // namespace ibgpu
