#pragma once
// What localisation reads and writes, shared by the localiser (health/localise.h) and the fabric
// (health/fabric.h): one judged pair measurement, and the entity a fault is laid on.
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "core/verdict.h"

namespace ibgpu {

// Views: the strings live in the judged results (and the judge's
// measurements), which outlive localisation.
struct Endpoint {
  std::string_view host;
  std::string_view device;  // rail "mlx5_0:1"; empty when not known (MPI)
  int rank = -1;            // tells apart several rank pairs between the same rails or hosts
};

// A pair observation's reason, when it has one, held on the heap: most observations are healthy
// and have none, and a fleet's are millions (an optional Reason inline was half of each, and the
// judge's memory grew by hundreds of MiB at 4,096 hosts). Reads and assigns as an optional does.
class HeldReason {
 public:
  HeldReason() = default;
  HeldReason(std::nullopt_t) {}
  HeldReason(Reason reason) : held_(std::make_unique<Reason>(std::move(reason))) {}
  HeldReason(std::optional<Reason> reason) {
    if (reason) held_ = std::make_unique<Reason>(std::move(*reason));
  }
  HeldReason(const HeldReason& other) : held_(other.held_ ? std::make_unique<Reason>(*other.held_) : nullptr) {}
  HeldReason(HeldReason&&) noexcept = default;
  HeldReason& operator=(HeldReason other) noexcept {
    held_ = std::move(other.held_);
    return *this;
  }
  explicit operator bool() const { return held_ != nullptr; }
  Reason& operator*() const { return *held_; }
  Reason* operator->() const { return held_.get(); }

 private:
  std::unique_ptr<Reason> held_;
};

// One judged measurement of one pair. Several observations of the same pair
// (same group, hosts, rails and ranks) are re-tests: the pair is bad only when
// every one of them is (a re-test confirms), and then as bad as the mildest.
// Different rank pairs between the same two units (MPI: hosts) are one edge,
// as bad as the worst of them, so peers are counted once.
struct PairObservation {
  std::string_view group;  // what was measured: "net.verbs.write_bw@8388608:bw_avg_GBps"
  Endpoint a, b;
  HealthState state = HealthState::healthy;  // healthy, degraded or failed
  HeldReason reason;                         // when not healthy
  bool retest = false;                       // measured by a re-test pass, not the run's own plan
  std::optional<double> reference = {};      // what the pair should read (the fleet reference), when known
  double sigma = 0;                          // the run's noise: one measurement's spread in log space (0: unknown)
};

struct Blame {
  Entity entity;  // node, hca_port or link; switch, uplink or path (the fabric)
  HealthState state = HealthState::healthy;
  Reason reason;
  int bad_peers = 0;  // node, hca_port: bad with this many peers that are not suspects themselves
};

}  // namespace ibgpu
