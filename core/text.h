#pragma once
// Small text helpers every folder may use.
#include <string>
#include <vector>

namespace ibgpu {

// The items with `separator` between each two: {"a", "b"}, ", " -> "a, b".
std::string join(const std::vector<std::string>& items, const std::string& separator);
// Numbers likewise: {1, 2}, "," -> "1,2".
std::string join(const std::vector<int>& items, const std::string& separator);
// "mlx5_2" < "mlx5_10": compare digit runs by value.
bool natural_less(const std::string& a, const std::string& b);

}  // namespace ibgpu
