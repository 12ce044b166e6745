#include "app/text.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

namespace ibgpu {

std::optional<std::size_t> terminal_width() {
  constexpr long kNarrowest = 40, kWidest = 1000;
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && n >= kNarrowest && n <= kWidest) return static_cast<std::size_t>(n);
  }
  winsize size{};
  if (isatty(STDOUT_FILENO) == 1 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return std::clamp<std::size_t>(size.ws_col, kNarrowest, kWidest);
  return std::nullopt;
}

double parse_duration(const std::string& text) {
  const auto bad = [&](const std::string& why) -> std::invalid_argument {
    return std::invalid_argument("bad duration '" + text + "': " + why);
  };
  constexpr const char* kExamples = "use e.g. 90s, 15m, 2h, 1h30m";
  if (text.empty()) throw std::invalid_argument("empty duration");
  // Parts of plain decimal numbers, each with its unit ("1h30" is refused: 30 what?); a lone
  // number is seconds. No signs, exponents, nan or inf: what stod would take is not a time.
  double total = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t begin = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i < text.size() && text[i] == '.') {
      ++i;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    }
    if (i == begin || (i == begin + 1 && text[begin] == '.')) throw bad(kExamples);
    if (i - begin > 12) throw bad("too long a number");
    const double value = std::stod(text.substr(begin, i - begin));
    double unit = 0;
    if (i < text.size()) {
      const char u = text[i++];
      unit = u == 's' ? 1 : u == 'm' ? 60 : u == 'h' ? 3600 : u == 'd' ? 86400 : 0;
      if (unit == 0) throw bad("units are s, m, h, d");
    } else if (begin == 0) {
      unit = 1;  // the whole text is one number: seconds
    } else {
      throw bad("every part needs its unit (" + std::string(kExamples) + ")");
    }
    total += value * unit;
  }
  if (total <= 0) throw bad("must be a positive time");
  if (total > kMaxDurationS)
    throw bad("longer than " + std::to_string(static_cast<int>(kMaxDurationS / 86400)) + " days");
  return total;
}

std::string short_list(const std::vector<std::string>& items, std::size_t shown) {
  std::string text;
  for (std::size_t i = 0; i < std::min(shown, items.size()); ++i) text += (i ? ", " : "") + items[i];
  if (items.size() > shown) text += ", +" + std::to_string(items.size() - shown) + " more";
  return text;
}

}  // namespace ibgpu
