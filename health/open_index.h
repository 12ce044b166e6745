#pragma once
// Positions in a caller's list, found by hash: open addressing with linear
// probing over (hash, position) slots, kept at most half full. A slot keeps
// its key's hash, so most probes compare no key, and a lookup allocates
// nothing. The caller holds the keys; `same(position)` compares one.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace ibgpu {

class OpenIndex {
 public:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  // The position whose key is the one hashed, or kNone.
  template <class Same>
  std::uint32_t find(std::uint32_t hash, Same same) const {
    if (slots_.empty()) return kNone;
    for (std::size_t i = hash & mask();; i = (i + 1) & mask()) {
      const Slot& slot = slots_[i];
      if (slot.position == kNone || (slot.hash == hash && same(slot.position))) return slot.position;
    }
  }
  // The same, or, when the key is new, `count` (the position the caller
  // adds it at, after the `count` it has) with true.
  template <class Same>
  std::pair<std::uint32_t, bool> find_or_add(std::uint32_t hash, std::size_t count, Same same) {
    if (2 * (count + 1) > slots_.size()) rehash(std::max<std::size_t>(64, 2 * slots_.size()));
    for (std::size_t i = hash & mask();; i = (i + 1) & mask()) {
      Slot& slot = slots_[i];
      if (slot.position == kNone) {
        slot = Slot{hash, static_cast<std::uint32_t>(count)};
        return {slot.position, true};
      }
      if (slot.hash == hash && same(slot.position)) return {slot.position, false};
    }
  }
  // Room for about this many keys: fewer rehashes, no correctness at stake.
  void reserve(std::size_t keys) {
    std::size_t n = 64;
    while (n < 2 * keys) n *= 2;
    if (n > slots_.size()) rehash(n);
  }
  void clear() { slots_.clear(); }

 private:
  struct Slot {
    std::uint32_t hash = 0;
    std::uint32_t position = kNone;
  };
  std::size_t mask() const { return slots_.size() - 1; }
  void rehash(std::size_t size) {  // a power of two
    std::vector<Slot> slots(size);
    for (const Slot& old : slots_) {
      if (old.position == kNone) continue;
      std::size_t i = old.hash & (size - 1);
      while (slots[i].position != kNone) i = (i + 1) & (size - 1);
      slots[i] = old;
    }
    slots_ = std::move(slots);
  }

  std::vector<Slot> slots_;
};

}  // namespace ibgpu
