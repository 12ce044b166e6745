#pragma once
// Small text helpers every folder may use.
#include <concepts>
#include <string>
#include <string_view>
#include <vector>

namespace ibgpu {

// The items with `separator` between each two: {"a", "b"}, ", " -> "a, b".
std::string join(const std::vector<std::string>& items, const std::string& separator);
// Numbers likewise: {1, 2}, "," -> "1,2".
std::string join(const std::vector<int>& items, const std::string& separator);
// A count and its noun, the noun singular for 1: (1, "round") "1 round", (3, "round") "3 rounds";
// `many` where the plural is not the noun and "s": (2, "pass", "passes") "2 passes".
std::string count_text(long long n, std::string_view one, std::string_view many = {});
// A number of things: an integer, not a bool.
template <typename N>
concept CountOfThings = std::integral<N> && !std::same_as<N, bool>;
template <CountOfThings N>
std::string count_text(N n, std::string_view one, std::string_view many = {}) {
  return count_text(static_cast<long long>(n), one, many);
}
// A number with `digits` digits after the point: (0.5, 2) "0.50".
std::string fixed_text(double v, int digits);
// The text in lower case (ASCII): "VL15_dropped" -> "vl15_dropped".
std::string lower(std::string_view text);
// The text without the white space (isspace) at either end.
std::string_view trim(std::string_view text);

// Each line of `text`, trimmed, to `each` (bool(std::string_view)) until it returns true.
template <class Each>
void for_each_line(std::string_view text, Each each) {
  while (!text.empty()) {
    const auto end = text.find('\n');
    if (each(trim(text.substr(0, end)))) return;
    if (end == std::string_view::npos) return;
    text.remove_prefix(end + 1);
  }
}
// "mlx5_2" < "mlx5_10": compare digit runs by value.
bool natural_less(const std::string& a, const std::string& b);

}  // namespace ibgpu
