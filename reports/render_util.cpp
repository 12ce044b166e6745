#include "reports/render_util.h"

#include <charconv>
#include <cstdio>
#include <ctime>

namespace ibgpu {

std::optional<long long> unix_seconds(const std::string& text) {
  std::tm t{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &t.tm_year, &t.tm_mon, &t.tm_mday, &t.tm_hour,
                  &t.tm_min, &t.tm_sec, &consumed) != 6 || consumed != 19)
    return std::nullopt;
  std::size_t at = 19;
  if (at < text.size() && text[at] == '.')
    for (++at; at < text.size() && text[at] >= '0' && text[at] <= '9';) ++at;
  long long offset_s = 0;
  const std::string zone = text.substr(at);
  if (zone != "Z" && zone != "z") {
    int hh = 0, mm = 0, n = 0;
    if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') ||
        std::sscanf(zone.c_str() + 1, "%2d:%2d%n", &hh, &mm, &n) != 2 || n != 5)
      return std::nullopt;
    offset_s = (zone[0] == '+' ? 1 : -1) * (hh * 3600LL + mm * 60LL);
  }
  t.tm_year -= 1900;
  t.tm_mon -= 1;
  return static_cast<long long>(timegm(&t)) - offset_s;
}

std::string shortest_number(double v) {
  char text[64];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, v);
  return ec == std::errc() ? std::string(text, end) : std::to_string(v);
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? sep : "") + items[i];
  return text;
}

}  // namespace ibgpu
