#pragma once
// The judge's statistics, one definition each: the fleet median, the
// baseline's and localisation's are the same median. Pure.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

namespace ibgpu {

// The lower median (of an even count, the lower middle value); none of nothing.
inline std::optional<double> lower_median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>((values.size() - 1) / 2);
  std::nth_element(values.begin(), mid, values.end());
  return *mid;
}

// More than half: `part` of `whole`.
inline bool is_majority(int part, int whole) { return 2 * part > whole; }

}  // namespace ibgpu
