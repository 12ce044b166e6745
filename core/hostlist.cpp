#include "core/hostlist.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include "core/bounded_input.h"

namespace ibgpu {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// "001-032" or "7": the numbers of one range, each as wide as the range's lower bound.
void expand_range(std::string_view range, std::vector<std::string>& out, std::size_t max_names) {
  const auto dash = range.find('-');
  const std::string_view lo = range.substr(0, dash);
  const std::string_view hi = dash == std::string_view::npos ? lo : range.substr(dash + 1);
  if (!all_digits(lo) || !all_digits(hi) || lo.size() > 9 || hi.size() > 9)
    throw InputError("expected a number or a range of numbers such as 001-032 in brackets, not '" + std::string(range) +
                     "'");
  const long first = std::stol(std::string(lo)), last = std::stol(std::string(hi));
  if (last < first) throw InputError("the range '" + std::string(range) + "' runs backwards");
  if (static_cast<std::size_t>(last - first) + out.size() >= max_names)
    throw InputError("more than " + std::to_string(max_names) + " names");
  for (long n = first; n <= last; ++n) {
    std::string digits = std::to_string(n);
    if (digits.size() < lo.size()) digits.insert(0, lo.size() - digits.size(), '0');
    out.push_back(std::move(digits));
  }
}

// One name pattern without top-level commas: literal parts and bracketed lists, multiplied out.
std::vector<std::string> expand_one(std::string_view pattern, std::size_t max_names) {
  std::vector<std::string> names{""};
  std::size_t i = 0;
  while (i < pattern.size()) {
    const auto open = pattern.find('[', i);
    const std::string_view literal = pattern.substr(i, open == std::string_view::npos ? open : open - i);
    if (literal.find(']') != std::string_view::npos)
      throw InputError("a ']' without its '[' in '" + std::string(pattern) + "'");
    for (auto& n : names) n += literal;
    if (open == std::string_view::npos) break;
    const auto close = pattern.find(']', open);
    if (close == std::string_view::npos) throw InputError("a '[' without its ']' in '" + std::string(pattern) + "'");
    std::vector<std::string> numbers;
    std::string_view inside = pattern.substr(open + 1, close - open - 1);
    while (true) {
      const auto comma = inside.find(',');
      expand_range(inside.substr(0, comma), numbers, max_names);
      if (comma == std::string_view::npos) break;
      inside.remove_prefix(comma + 1);
    }
    if (names.size() * numbers.size() > max_names)
      throw InputError("more than " + std::to_string(max_names) + " names");
    std::vector<std::string> product;
    for (const auto& n : names)
      for (const auto& number : numbers) product.push_back(n + number);
    names = std::move(product);
    i = close + 1;
  }
  return names;
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view expression, std::size_t max_names) {
  std::vector<std::string> out;
  std::size_t start = 0, depth = 0;
  for (std::size_t i = 0; i <= expression.size(); ++i) {
    const char c = i < expression.size() ? expression[i] : ',';
    if (c == '[') ++depth;
    if (c == ']' && depth > 0) --depth;
    if (c != ',' || (depth > 0 && i < expression.size())) continue;  // the end closes the last part
    const std::string_view part = expression.substr(start, i - start);
    if (part.empty()) throw InputError("expected a host name between commas in '" + std::string(expression) + "'");
    for (auto& name : expand_one(part, max_names - out.size())) out.push_back(std::move(name));
    start = i + 1;
  }
  return out;
}

std::string compress_hostlist(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  // (prefix, width) -> numbers, width 0 for numbers without zero padding; names without a
  // trailing number stay as they are.
  std::map<std::pair<std::string, std::size_t>, std::vector<long>> numbered;
  std::vector<std::pair<std::string, std::string>> unpadded;  // prefix, digits
  std::vector<std::string> parts;
  for (const auto& n : names) {
    std::size_t digits = 0;
    while (digits < n.size() && digits < 9 && std::isdigit(static_cast<unsigned char>(n[n.size() - 1 - digits])))
      ++digits;
    if (digits == 0) {
      parts.push_back(n);
      continue;
    }
    const std::string prefix = n.substr(0, n.size() - digits), number = n.substr(n.size() - digits);
    if (number.size() > 1 && number.front() == '0')
      numbered[{prefix, number.size()}].push_back(std::stol(number));
    else
      unpadded.emplace_back(prefix, number);
  }
  // "gpu100" belongs with "gpu001".."gpu099" (width 3); "h10" with "h9" (no padding).
  for (const auto& [prefix, number] : unpadded) {
    const bool padded_group = numbered.count({prefix, number.size()}) > 0;
    numbered[{prefix, padded_group ? number.size() : 0}].push_back(std::stol(number));
  }
  for (auto& [key, numbers] : numbered) {
    const auto& [prefix, width] = key;
    auto padded = [w = width](long v) {
      std::string s = std::to_string(v);
      if (s.size() < w) s.insert(0, w - s.size(), '0');
      return s;
    };
    if (numbers.size() == 1) {
      parts.push_back(prefix + padded(numbers.front()));
      continue;
    }
    std::sort(numbers.begin(), numbers.end());
    std::string ranges;
    for (std::size_t i = 0; i < numbers.size();) {
      std::size_t j = i;
      while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
      if (!ranges.empty()) ranges += ',';
      ranges += padded(numbers[i]) + (j > i ? "-" + padded(numbers[j]) : "");
      i = j + 1;
    }
    parts.push_back(prefix + "[" + ranges + "]");
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

}  // namespace ibgpu
