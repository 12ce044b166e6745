#pragma once
// Positions 0..n-1 grouped by a dense id, each group in position order: a
// counting sort, linear, with no container per group. For steps that walk
// a fleet's results or observations host by host, or unit by unit.
#include <cstdint>
#include <span>
#include <vector>

namespace ibgpu {

class GroupedPositions {
 public:
  static constexpr std::uint32_t kLeftOut = ~std::uint32_t{0};

  // id_of(i): position i's id (below `ids`), or kLeftOut.
  template <class IdOf>
  GroupedPositions(std::size_t n, std::size_t ids, IdOf id_of) : start_(ids + 1, 0) {
    for (std::size_t i = 0; i < n; ++i)
      if (const std::uint32_t id = id_of(i); id != kLeftOut) ++start_[id + 1];
    for (std::size_t id = 1; id < start_.size(); ++id) start_[id] += start_[id - 1];
    positions_.resize(start_.back());
    std::vector<std::uint32_t> next(start_.begin(), start_.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      if (const std::uint32_t id = id_of(i); id != kLeftOut) positions_[next[id]++] = static_cast<std::uint32_t>(i);
  }

  // Group `id`'s positions, in order.
  std::span<const std::uint32_t> of(std::size_t id) const {
    return std::span<const std::uint32_t>(positions_).subspan(start_[id], start_[id + 1] - start_[id]);
  }
  // Every position kept, group after group; group `id` starts at start(id).
  const std::vector<std::uint32_t>& all() const { return positions_; }
  std::size_t start(std::size_t id) const { return start_[id]; }
  std::size_t groups() const { return start_.size() - 1; }

 private:
  std::vector<std::uint32_t> start_;  // group id's positions: positions_[start_[id], start_[id + 1])
  std::vector<std::uint32_t> positions_;
};

}  // namespace ibgpu
