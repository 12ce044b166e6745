#pragma once
// Verdicts by entity, in order of first mention: a state only ever gets
// worse and the reasons accumulate. Indexed by kind and id, because a fleet
// has tens of thousands of entities. Used by the judge and its parts.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
    if (2 * (verdicts_.size() + 1) > slots_.size()) rehash(std::max<std::size_t>(64, 2 * slots_.size()));
    const std::uint32_t h = hash(kind, id);
    for (std::size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& slot = slots_[i];
      if (slot.position == 0) {
        verdicts_.push_back(Verdict{Entity{std::string(kind), std::string(id)}, HealthState::healthy, {}, std::nullopt});
        slot = Slot{h, static_cast<std::uint32_t>(verdicts_.size())};
        return verdicts_.size() - 1;
      }
      if (slot.hash == h && is(verdicts_[slot.position - 1], kind, id)) return slot.position - 1;
    }
  }
  const Verdict* find(std::string_view kind, std::string_view id) const {
    if (slots_.empty()) return nullptr;
    const std::uint32_t h = hash(kind, id);
    for (std::size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& slot = slots_[i];
      if (slot.position == 0) return nullptr;
      if (slot.hash == h && is(verdicts_[slot.position - 1], kind, id)) return &verdicts_[slot.position - 1];
    }
  }
  // Room for about this many entities: fewer reallocations, no correctness at stake.
  void reserve(std::size_t entities) {
    verdicts_.reserve(entities);
    std::size_t n = 64;
    while (n < 2 * entities) n *= 2;
    if (n > slots_.size()) rehash(n);
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
    slots_.clear();
    return std::move(verdicts_);
  }

 private:
  // Open addressing over positions in verdicts_: no allocation per entity,
  // and a slot keeps its hash, so most probes compare no string.
  struct Slot {
    std::uint32_t hash = 0;
    std::uint32_t position = 0;  // in verdicts_, plus one; 0: empty
  };
  static std::uint32_t hash(std::string_view kind, std::string_view id) {
    const std::size_t h = std::hash<std::string_view>{}(id);
    return static_cast<std::uint32_t>(h ^ (std::hash<std::string_view>{}(kind) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
  }
  static bool is(const Verdict& v, std::string_view kind, std::string_view id) {
    return v.entity.id == id && v.entity.kind == kind;
  }
  void rehash(std::size_t size) {  // size: a power of two
    std::vector<Slot> slots(size);
    for (const Slot& old : slots_) {
      if (old.position == 0) continue;
      std::size_t i = old.hash & (size - 1);
      while (slots[i].position != 0) i = (i + 1) & (size - 1);
      slots[i] = old;
    }
    slots_ = std::move(slots);
  }

  std::vector<Verdict> verdicts_;
  std::vector<Slot> slots_;
};

}  // namespace ibgpu
