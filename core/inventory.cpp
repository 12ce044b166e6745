#include "core/inventory.h"

#include <cctype>
#include <charconv>
#include <string_view>
#include <system_error>

#include "core/text.h"

namespace ibgpu {

namespace {

// sysfs values are one short line; anything longer is not a port attribute (and a
// backtracking regex once overflowed the stack on a 100,000-character one).
constexpr std::size_t kMaxAttribute = 256;

// Leading decimal digits of `s` as an int (removed from `s`); nullopt without any or out of range.
std::optional<int> take_int(std::string_view& s) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr == s.data() || s.front() == '-' || s.front() == '+') return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(ptr - s.data()));
  return v;
}

bool take(std::string_view& s, std::string_view word) {
  if (s.substr(0, word.size()) != word) return false;
  s.remove_prefix(word.size());
  return true;
}

}  // namespace

std::optional<CodedState> parse_coded_state(const std::string& text) {
  // "4: ACTIVE", "5: LinkUp"
  if (text.size() > kMaxAttribute) return std::nullopt;
  std::string_view s = trim(text);
  const auto code = take_int(s);
  if (!code) return std::nullopt;
  s = trim(s);
  if (!take(s, ":")) return std::nullopt;
  s = trim(s);
  if (s.empty()) return std::nullopt;
  return CodedState{*code, std::string(s)};
}

std::optional<LinkRate> parse_rate(const std::string& text) {
  // "400 Gb/sec (4X NDR)", "25 Gb/sec (1X EDR)", "2.5 Gb/sec (1X SDR)", "100 Gb/sec"
  if (text.size() > kMaxAttribute) return std::nullopt;
  std::string_view s = trim(text);
  std::size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  if (digits == 0 || digits > 6) return std::nullopt;  // no link is a million Gb/s
  std::size_t end = digits;
  if (end < s.size() && s[end] == '.') {
    ++end;
    const std::size_t fraction = end;
    while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
    if (end == fraction || end - fraction > 6) return std::nullopt;
  }
  LinkRate rate;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + end, rate.gbps);
  if (ec != std::errc{} || ptr != s.data() + end) return std::nullopt;
  s.remove_prefix(end);
  s = trim(s);
  if (!take(s, "Gb/sec")) return std::nullopt;
  s = trim(s);
  if (s.empty()) return rate;
  if (!take(s, "(")) return std::nullopt;
  s = trim(s);
  rate.lanes = take_int(s);
  if (!rate.lanes || !take(s, "X")) return std::nullopt;
  s = trim(s);
  std::size_t speed = 0;
  while (speed < s.size() && std::isalnum(static_cast<unsigned char>(s[speed]))) ++speed;
  rate.speed = std::string(s.substr(0, speed));
  s = trim(s.substr(speed));
  if (s != ")") return std::nullopt;
  return rate;
}

const char* to_string(PciProximity p) {
  switch (p) {
    case PciProximity::same_switch:
      return "same_switch";
    case PciProximity::same_numa:
      return "same_numa";
    case PciProximity::other:
      return "other";
  }
  return "other";
}

std::optional<PciProximity> pci_proximity_from_string(const std::string& text) {
  for (auto p : {PciProximity::same_switch, PciProximity::same_numa, PciProximity::other})
    if (text == to_string(p)) return p;
  return std::nullopt;
}

namespace {
constexpr std::string_view kGpuPrefix = "gpu";
}

std::string gpu_name(int index) { return std::string(kGpuPrefix) + std::to_string(index); }

std::optional<int> gpu_index(std::string_view name) {
  if (!name.starts_with(kGpuPrefix)) return std::nullopt;
  name.remove_prefix(kGpuPrefix.size());
  int index = 0;
  const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), index);
  const bool digits_only = !name.empty() && std::isdigit(static_cast<unsigned char>(name.front()));
  if (!digits_only || error != std::errc{} || end != name.data() + name.size()) return std::nullopt;
  return index;
}

std::string port_name(const Hca& hca, const IbPort& port) { return hca.name + ":" + std::to_string(port.port); }

AdmittedParts admitted_parts(const HostInventory& host) {
  AdmittedParts parts;
  for (const auto& g : host.gpus) parts.gpus.push_back(gpu_name(g.index));
  for (const auto& hca : host.hcas)
    if (hca.rail)
      for (const auto& port : hca.ports) parts.rails.push_back(port_name(hca, port));
  return parts;
}

}  // namespace ibgpu
