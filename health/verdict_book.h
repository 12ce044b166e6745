#pragma once
// Verdicts by entity, in order of first mention: a state only ever gets
// worse and the reasons accumulate. Indexed by kind and id, because a fleet
// has tens of thousands of entities. Used by the judge and its parts.
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "health/verdict.h"

namespace ibgpu {

class VerdictBook {
 public:
  Verdict& at(const Entity& e) {
    // One index per kind: the lookup needs no key built from kind and id.
    auto [it, fresh] = index_[e.kind].try_emplace(e.id, verdicts_.size());
    if (fresh) verdicts_.push_back(Verdict{e, HealthState::healthy, {}, std::nullopt});
    return verdicts_[it->second];
  }
  const Verdict* find(const Entity& e) const {
    const auto kind = index_.find(e.kind);
    if (kind == index_.end()) return nullptr;
    const auto it = kind->second.find(e.id);
    return it == kind->second.end() ? nullptr : &verdicts_[it->second];
  }
  void add(const Entity& e, HealthState state, std::optional<Reason> reason = std::nullopt) {
    Verdict& v = at(e);
    v.state = worst(v.state, state);
    if (reason) v.reasons.push_back(std::move(*reason));
  }
  std::vector<Verdict> take() { return std::move(verdicts_); }

 private:
  std::vector<Verdict> verdicts_;
  std::unordered_map<std::string, std::unordered_map<std::string, std::size_t>> index_;
};

}  // namespace ibgpu
