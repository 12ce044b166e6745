#pragma once
// Dense ids for names, in order of first mention: a fleet's results name a
// few thousand hosts and a handful of rails hundreds of thousands of times,
// and later steps count and compare integers. Found by hash (OpenIndex): a
// lookup allocates nothing. Holds views: the names must outlive it.
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "health/open_index.h"

namespace ibgpu {

class NameIds {
 public:
  static constexpr std::uint32_t kNone = OpenIndex::kNone;

  // The name's id, added when new.
  std::uint32_t of(std::string_view name) {
    const auto [id, fresh] =
        index_.find_or_add(hash(name), names_.size(), [&](std::uint32_t i) { return names_[i] == name; });
    if (fresh) names_.push_back(name);
    return id;
  }
  // The same, checking first whether it is the name of `hint` (an id or
  // kNone): names tend to come again as they came before.
  std::uint32_t of(std::string_view name, std::uint32_t hint) {
    return hint < names_.size() && names_[hint] == name ? hint : of(name);
  }
  // The name's id, or kNone.
  std::uint32_t find(std::string_view name) const {
    return index_.find(hash(name), [&](std::uint32_t i) { return names_[i] == name; });
  }
  std::string_view name(std::uint32_t id) const { return names_[id]; }
  const std::vector<std::string_view>& names() const { return names_; }
  std::size_t size() const { return names_.size(); }

 private:
  static std::uint32_t hash(std::string_view name) {
    const std::size_t h = std::hash<std::string_view>{}(name);
    return static_cast<std::uint32_t>(h ^ (h >> 32));
  }

  OpenIndex index_;
  std::vector<std::string_view> names_;
};

}  // namespace ibgpu
