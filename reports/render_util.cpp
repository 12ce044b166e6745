#include "reports/render_util.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <map>

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

std::vector<std::string_view> wrap_words(std::string_view text, std::size_t width) {
  std::vector<std::string_view> lines;
  if (width == 0) return lines;
  std::size_t at = 0;
  while (true) {
    while (at < text.size() && text[at] == ' ') ++at;
    if (at == text.size()) return lines;
    std::size_t end = std::min(text.size(), at + width);
    if (end < text.size()) {
      const std::size_t blank = text.rfind(' ', end);  // the last blank that lets the line end by `end`
      if (blank != std::string_view::npos && blank > at) end = blank;
    }
    std::size_t trimmed = end;
    while (trimmed > at && text[trimmed - 1] == ' ') --trimmed;
    lines.push_back(text.substr(at, trimmed - at));
    at = end;
  }
}

namespace {

// "gpu017" -> {"gpu", "017"}; a name without a trailing number has no digits.
std::pair<std::string_view, std::string_view> split_number(std::string_view name) {
  std::size_t i = name.size();
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') --i;
  if (name.size() - i > 18) i = name.size();  // no number that wide: a name as it is
  return {name.substr(0, i), name.substr(i)};
}

}  // namespace

std::string hostlist(const std::vector<std::string>& names) {
  // Numbers with leading zeros keep their width ("gpu007"); others are folded whatever
  // their width ("n9", "n10"): kNoNumber, kNatural or the zero-padded width.
  constexpr int kNoNumber = -1, kNatural = 0;
  struct Group {
    std::string prefix;
    int digits = kNoNumber;
    std::vector<unsigned long long> numbers;
  };
  std::vector<Group> groups;                                      // in order of first appearance
  std::map<std::pair<std::string_view, int>, std::size_t> index;  // (prefix, digits) -> group
  for (const auto& name : names) {
    const auto [prefix, number] = split_number(name);
    const int digits = number.empty()                           ? kNoNumber
                       : number.size() == 1 || number[0] != '0' ? kNatural
                                                                : static_cast<int>(number.size());
    const auto [it, added] = index.emplace(std::pair{prefix, digits}, groups.size());
    if (added) groups.push_back(Group{std::string(prefix), digits, {}});
    unsigned long long n = 0;
    std::from_chars(number.data(), number.data() + number.size(), n);
    groups[it->second].numbers.push_back(n);
  }
  std::string out;
  for (auto& g : groups) {
    if (!out.empty()) out += ',';
    out += g.prefix;
    if (g.digits == kNoNumber) continue;
    std::sort(g.numbers.begin(), g.numbers.end());
    g.numbers.erase(std::unique(g.numbers.begin(), g.numbers.end()), g.numbers.end());
    auto padded = [&](unsigned long long n) {
      std::string text = std::to_string(n);
      const auto width = static_cast<std::size_t>(g.digits);
      return std::string(width > text.size() ? width - text.size() : 0, '0') + text;
    };
    if (g.numbers.size() == 1) {
      out += padded(g.numbers[0]);
      continue;
    }
    out += '[';
    for (std::size_t i = 0; i < g.numbers.size();) {
      std::size_t j = i;
      while (j + 1 < g.numbers.size() && g.numbers[j + 1] == g.numbers[j] + 1) ++j;
      if (i) out += ',';
      out += padded(g.numbers[i]);
      if (j > i) out += '-' + padded(g.numbers[j]);
      i = j + 1;
    }
    out += ']';
  }
  return out;
}

std::vector<std::string> work_order_lines(const WorkOrder& order) {
  std::vector<std::string> served;
  for (const Entity& e : order.entities) served.push_back(entity_text(e));
  std::vector<std::string> lines{(order.cable.empty() ? order.port + " (no cable listed)" : order.cable) + ": " +
                                 to_string(order.state) + " (" + join(served, ", ") + ")"};
  if (!order.shortfall.empty()) lines.push_back("shortfall: " + order.shortfall);
  std::vector<std::string> moved;
  for (const auto& [name, increase] : order.counters) moved.push_back(name + " +" + shortest_number(increase));
  lines.push_back("counters moved on the host's end: " + (moved.empty() ? std::string("none") : join(moved, ", ")));
  for (const std::string& unread : order.unread) lines.push_back("not read: " + unread);
  lines.push_back("next: " + order.next);
  return lines;
}

std::string code_text(const Reason& reason) {
  std::string text(to_string(reason.code));
  if (reason.confidence) text.append(" (").append(to_string(reason.confidence->level)).append(")");
  return text;
}

}  // namespace ibgpu
