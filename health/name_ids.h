#pragma once
// Dense ids for names, in order of first mention: a fleet's results name a
// few thousand hosts and a handful of rails hundreds of thousands of times,
// and later steps count and compare integers. Open addressing over the ids,
// each slot with its hash: a lookup allocates nothing and compares a text
// only on a full hash match. Holds views: the names must outlive it.
#include <cstdint>
#include <functional>
#include <utility>
#include <string_view>
#include <vector>

namespace ibgpu {

class NameIds {
 public:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  // The name's id, added when new.
  std::uint32_t of(std::string_view name) {
    if (2 * (names_.size() + 1) > slots_.size()) rehash(slots_.empty() ? 64 : 2 * slots_.size());
    const std::uint32_t h = hash(name);
    for (std::size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& slot = slots_[i];
      if (slot.id == kNone) {
        slot = Slot{h, static_cast<std::uint32_t>(names_.size())};
        names_.push_back(name);
        return slot.id;
      }
      if (slot.hash == h && names_[slot.id] == name) return slot.id;
    }
  }
  // The same, checking first whether it is the name of `hint` (an id or
  // kNone): names tend to come again as they came before.
  std::uint32_t of(std::string_view name, std::uint32_t hint) {
    return hint < names_.size() && names_[hint] == name ? hint : of(name);
  }
  // The name's id, or kNone.
  std::uint32_t find(std::string_view name) const {
    if (slots_.empty()) return kNone;
    const std::uint32_t h = hash(name);
    for (std::size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      const Slot& slot = slots_[i];
      if (slot.id == kNone || (slot.hash == h && names_[slot.id] == name)) return slot.id;
    }
  }
  std::string_view name(std::uint32_t id) const { return names_[id]; }
  const std::vector<std::string_view>& names() const { return names_; }
  std::size_t size() const { return names_.size(); }

 private:
  struct Slot {
    std::uint32_t hash = 0;
    std::uint32_t id = kNone;
  };
  static std::uint32_t hash(std::string_view name) {
    const std::size_t h = std::hash<std::string_view>{}(name);
    return static_cast<std::uint32_t>(h ^ (h >> 32));
  }
  void rehash(std::size_t size) {  // a power of two
    std::vector<Slot> slots(size);
    for (const Slot& old : slots_) {
      if (old.id == kNone) continue;
      std::size_t i = old.hash & (size - 1);
      while (slots[i].id != kNone) i = (i + 1) & (size - 1);
      slots[i] = old;
    }
    slots_ = std::move(slots);
  }

  std::vector<Slot> slots_;
  std::vector<std::string_view> names_;
};

}  // namespace ibgpu
