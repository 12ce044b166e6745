#pragma once
// Verdicts by entity, in order of first mention: a state only ever gets
// worse and the reasons accumulate. Indexed by kind and id, because a fleet
// has tens of thousands of entities. Used by the judge and its parts.
#include <deque>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "health/verdict.h"

namespace ibgpu {

class VerdictBook {
 public:
  VerdictBook() = default;
  // The index views the entities held in verdicts_.
  VerdictBook(const VerdictBook&) = delete;
  VerdictBook& operator=(const VerdictBook&) = delete;

  // Kind and id as views: a lookup builds no string and allocates nothing.
  Verdict& at(std::string_view kind, std::string_view id) {
    auto it = index_.find(Key{kind, id});
    if (it != index_.end()) return *it->second;
    Verdict& v = verdicts_.emplace_back(Verdict{Entity{std::string(kind), std::string(id)}, HealthState::healthy, {}, std::nullopt});
    index_.emplace(Key{v.entity.kind, v.entity.id}, &v);
    return v;
  }
  Verdict& at(const Entity& e) { return at(e.kind, e.id); }
  void reserve(std::size_t entities) { index_.reserve(entities); }
  const Verdict* find(std::string_view kind, std::string_view id) const {
    const auto it = index_.find(Key{kind, id});
    return it == index_.end() ? nullptr : it->second;
  }
  const Verdict* find(const Entity& e) const { return find(e.kind, e.id); }
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
    std::vector<Verdict> out(std::make_move_iterator(verdicts_.begin()), std::make_move_iterator(verdicts_.end()));
    verdicts_.clear();
    return out;
  }

 private:
  struct Key {
    std::string_view kind, id;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      const std::size_t h = std::hash<std::string_view>{}(k.id);
      return h ^ (std::hash<std::string_view>{}(k.kind) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
    }
  };
  // A deque never moves what it holds: the index's views and pointers stay valid.
  std::deque<Verdict> verdicts_;
  std::unordered_map<Key, Verdict*, KeyHash> index_;
};

}  // namespace ibgpu
