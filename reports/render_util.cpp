#include "reports/render_util.h"

#include <charconv>
#include <cstdio>
#include <ctime>

namespace ibgpu {

std::optional<long long> unix_seconds(const std::string& text) {
  std::tm t{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &t.tm_year, &t.tm_mon, &t.tm_mday, &t.tm_hour, &t.tm_min,
                  &t.tm_sec, &consumed) != 6 ||
      consumed != 19)
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

namespace {

bool is_c1_at(std::string_view text, std::size_t i) {
  return static_cast<unsigned char>(text[i]) == 0xC2 && i + 1 < text.size() &&
         static_cast<unsigned char>(text[i + 1]) >= 0x80 && static_cast<unsigned char>(text[i + 1]) <= 0x9F;
}

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7F; }

}  // namespace

bool needs_escape(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (is_control(static_cast<unsigned char>(text[i])) || is_c1_at(text, i)) return true;
  return false;
}

std::string printable(std::string_view text) {
  if (!needs_escape(text)) return std::string(text);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_c1_at(text, i)) {
      const auto next = static_cast<unsigned char>(text[++i]);
      out += "\\u00";
      out += kHex[next >> 4];
      out += kHex[next & 15];
    } else if (!is_control(c)) {
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

void make_printable(std::string& text, std::size_t from) {
  const std::string_view tail(text.data() + from, text.size() - from);
  if (!needs_escape(tail)) return;
  const std::string escaped = printable(tail);
  text.replace(from, std::string::npos, escaped);
}

}  // namespace ibgpu
