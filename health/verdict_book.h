#pragma once
// Verdicts by entity, in order of first mention: a state only ever gets
// worse and the reasons accumulate. Used by the judge and its parts.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/verdict.h"

namespace ibgpu {

class VerdictBook {
 public:
  // The entity's position, made healthy on first mention. Positions stay
  // valid as the book grows; references from at() last until the next entity.
  std::size_t index(const Entity& e) {
    const auto [it, fresh] = index_.try_emplace(key(e.kind(), e.id()), verdicts_.size());
    if (fresh) verdicts_.push_back(Verdict{e, HealthState::healthy, {}, {}});
    return it->second;
  }
  Verdict& at(const Entity& e) { return verdicts_[index(e)]; }
  Verdict& operator[](std::size_t i) { return verdicts_[i]; }
  const Verdict* find(const Entity& e) const {
    const auto it = index_.find(key(e.kind(), e.id()));
    return it == index_.end() ? nullptr : &verdicts_[it->second];
  }

  // A reason records the state it gives; one that the entity could not be checked for (unknown)
  // is evidence of that, and one ibgpu did not judge (Evidence::not_judged) changes no state.
  static void add(Verdict& v, HealthState state, std::optional<Reason> reason = std::nullopt) {
    if (reason && reason->evidence == Evidence::not_judged) state = HealthState::healthy;
    v.state = worst(v.state, state);
    if (!reason) return;
    reason->state = state;
    if (state == HealthState::unknown) reason->evidence = Evidence::unchecked;
    v.reasons.push_back(std::move(*reason));
  }
  void add(const Entity& e, HealthState state, std::optional<Reason> reason = std::nullopt) {
    add(at(e), state, std::move(reason));
  }
  // The verdicts in order of first mention; the book is empty afterwards.
  std::vector<Verdict> take() {
    index_.clear();
    return std::move(verdicts_);
  }

 private:
  // The kind as one character before the id: "gpu h1/gpu0" names one entity only.
  static std::string key(EntityKind kind, std::string_view id) {
    return std::string(1, static_cast<char>('0' + static_cast<int>(kind))).append(id);
  }

  std::vector<Verdict> verdicts_;
  std::unordered_map<std::string, std::size_t> index_;  // kind and id -> position in verdicts_
};

}  // namespace ibgpu
