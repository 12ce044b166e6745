#include "app/text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace ibgpu {

double parse_duration(const std::string& text) {
  if (text.empty()) throw std::invalid_argument("empty duration");
  double total = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(text.substr(i), &used);
    } catch (const std::exception&) {
      throw std::invalid_argument("bad duration '" + text + "': use e.g. 90s, 15m, 2h, 1h30m");
    }
    if (!std::isfinite(value) || value < 0)
      throw std::invalid_argument("bad duration '" + text + "': must be a positive time");
    i += used;
    double unit = 1;
    if (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) {
      const char u = text[i++];
      unit = u == 's' ? 1 : u == 'm' ? 60 : u == 'h' ? 3600 : u == 'd' ? 86400 : -1;
      if (unit < 0) throw std::invalid_argument("bad duration '" + text + "': units are s, m, h, d");
    } else if (i < text.size()) {
      throw std::invalid_argument("bad duration '" + text + "': use e.g. 90s, 15m, 2h, 1h30m");
    }
    total += value * unit;
  }
  if (total <= 0) throw std::invalid_argument("bad duration '" + text + "': must be a positive time");
  return total;
}

std::string duration_text(double seconds) {
  char text[48];
  const long s = std::lround(seconds);
  if (seconds < 120) std::snprintf(text, sizeof text, "%.3g s", seconds);
  else if (s < 3600) std::snprintf(text, sizeof text, "%ldm %lds", s / 60, s % 60);
  else std::snprintf(text, sizeof text, "%ldh %ldm", s / 3600, (s % 3600) / 60);
  return text;
}

std::string short_list(const std::vector<std::string>& items, std::size_t shown) {
  std::string text;
  for (std::size_t i = 0; i < std::min(shown, items.size()); ++i) text += (i ? ", " : "") + items[i];
  if (items.size() > shown) text += ", +" + std::to_string(items.size() - shown) + " more";
  return text;
}

}  // namespace ibgpu
