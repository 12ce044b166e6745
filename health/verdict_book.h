#pragma once
// Verdicts by entity, in order of first mention: a state only ever gets
// worse and the reasons accumulate. Indexed by kind and id, because a fleet
// has tens of thousands of entities. Used by the judge and its parts.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "health/open_index.h"
#include "health/verdict.h"

namespace ibgpu {

class VerdictBook {
 public:
  // The entity's verdict, made healthy on first mention. The reference holds
  // until the next entity is added: keep index() to come back later.
  Verdict& at(std::string_view kind, std::string_view id) { return verdicts_[index(kind, id)]; }
  Verdict& at(const Entity& e) { return at(e.kind, e.id); }
  Verdict& operator[](std::size_t i) { return verdicts_[i]; }
  // Kind and id as views: a lookup builds no string and allocates nothing.
  std::size_t index(std::string_view kind, std::string_view id) {
    const auto [position, fresh] = index_.find_or_add(hash(kind, id), verdicts_.size(),
                                                      [&](std::uint32_t i) { return is(verdicts_[i], kind, id); });
    if (fresh)
      verdicts_.push_back(Verdict{Entity{std::string(kind), std::string(id)}, HealthState::healthy, {}, std::nullopt});
    return position;
  }
  const Verdict* find(std::string_view kind, std::string_view id) const {
    const std::uint32_t i = index_.find(hash(kind, id), [&](std::uint32_t p) { return is(verdicts_[p], kind, id); });
    return i == OpenIndex::kNone ? nullptr : &verdicts_[i];
  }
  // Room for about this many entities: fewer reallocations, no correctness at stake.
  void reserve(std::size_t entities) {
    verdicts_.reserve(entities);
    index_.reserve(entities);
  }
  static void add(Verdict& v, HealthState state, std::optional<Reason> reason = std::nullopt) {
    v.state = worst(v.state, state);
    if (reason) v.reasons.push_back(std::move(*reason));
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
  static std::uint32_t hash(std::string_view kind, std::string_view id) {
    const std::size_t h = std::hash<std::string_view>{}(id);
    return static_cast<std::uint32_t>(h ^ (std::hash<std::string_view>{}(kind) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
  }
  static bool is(const Verdict& v, std::string_view kind, std::string_view id) {
    return v.entity.id == id && v.entity.kind == kind;
  }

  std::vector<Verdict> verdicts_;
  OpenIndex index_;  // positions in verdicts_ by kind and id
};

}  // namespace ibgpu
