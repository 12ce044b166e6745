#pragma once
// Verdicts by entity, in order of first mention: a state only ever gets
// worse and the reasons accumulate. Indexed by kind and id, because a fleet
// has tens of thousands of entities. Used by the judge and its parts.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "health/verdict.h"

namespace ibgpu {

class VerdictBook {
 public:
  VerdictBook() = default;
  // The index hashes through verdicts_: the book stays where it is.
  VerdictBook(const VerdictBook&) = delete;
  VerdictBook& operator=(const VerdictBook&) = delete;

  // The entity's verdict, made healthy on first mention. The reference holds
  // until the next entity is added: keep index() to come back later.
  Verdict& at(std::string_view kind, std::string_view id) { return verdicts_[index(kind, id)]; }
  Verdict& at(const Entity& e) { return at(e.kind, e.id); }
  Verdict& operator[](std::size_t i) { return verdicts_[i]; }
  // Kind and id as views: a lookup builds no string and allocates nothing.
  std::size_t index(std::string_view kind, std::string_view id) {
    if (auto it = index_.find(Key{kind, id}); it != index_.end()) return *it;
    verdicts_.push_back(Verdict{Entity{std::string(kind), std::string(id)}, HealthState::healthy, {}, std::nullopt});
    return *index_.insert(static_cast<std::uint32_t>(verdicts_.size() - 1)).first;
  }
  const Verdict* find(std::string_view kind, std::string_view id) const {
    const auto it = index_.find(Key{kind, id});
    return it == index_.end() ? nullptr : &verdicts_[*it];
  }
  const Verdict* find(const Entity& e) const { return find(e.kind, e.id); }
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
  struct Key {
    std::string_view kind, id;
  };
  // The index holds positions in verdicts_ and looks them up by kind and id.
  struct Hash {
    using is_transparent = void;
    const std::vector<Verdict>* verdicts;
    std::size_t operator()(const Key& k) const {
      const std::size_t h = std::hash<std::string_view>{}(k.id);
      return h ^ (std::hash<std::string_view>{}(k.kind) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
    }
    std::size_t operator()(std::uint32_t i) const { return (*this)(key((*verdicts)[i])); }
  };
  struct Equal {
    using is_transparent = void;
    const std::vector<Verdict>* verdicts;
    Key of(const Key& k) const { return k; }
    Key of(std::uint32_t i) const { return key((*verdicts)[i]); }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      const Key x = of(a), y = of(b);
      return x.kind == y.kind && x.id == y.id;
    }
  };
  static Key key(const Verdict& v) { return {v.entity.kind, v.entity.id}; }

  std::vector<Verdict> verdicts_;
  std::unordered_set<std::uint32_t, Hash, Equal> index_{0, Hash{&verdicts_}, Equal{&verdicts_}};
};

}  // namespace ibgpu
