#include "core/cabling.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <utility>

#include "core/bounded_input.h"

namespace ibgpu {

namespace {

bool space(char c) { return c == ' ' || c == '\t'; }

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (space(s.front()) || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (space(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

void skip_space(std::string_view s, std::size_t& at) {
  while (at < s.size() && space(s[at])) ++at;
}

bool hex(std::string_view s) {
  return !s.empty() && s.size() <= 16 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

// A node as a port line or header names it: "S-<guid>" (a switch), "H-<guid>" (an HCA) or
// "R-<guid>" (a router), in quotes.
struct NodeName {
  bool is_switch = false;
  std::string guid;
};

// The quoted text starting at `at` (a '"' there), `at` moved past its closing quote.
std::optional<std::string_view> quoted(std::string_view s, std::size_t& at) {
  if (at >= s.size() || s[at] != '"') return std::nullopt;
  const std::size_t end = s.find('"', at + 1);
  if (end == std::string_view::npos) return std::nullopt;
  const std::string_view text = s.substr(at + 1, end - at - 1);
  at = end + 1;
  return text;
}

std::optional<NodeName> node_name(std::string_view text) {
  if (text.size() < 3 || text[1] != '-' || (text[0] != 'S' && text[0] != 'H' && text[0] != 'R')) return std::nullopt;
  if (!hex(text.substr(2))) return std::nullopt;
  return NodeName{text[0] == 'S', std::string(text.substr(2))};
}

// "[N]" at `at`, `at` moved past it.
std::optional<int> bracketed_number(std::string_view s, std::size_t& at) {
  if (at >= s.size() || s[at] != '[') return std::nullopt;
  std::size_t i = at + 1;
  int n = 0;
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && n < 100000; ++i) n = n * 10 + (s[i] - '0');
  if (i == at + 1 || i >= s.size() || s[i] != ']') return std::nullopt;
  at = i + 1;
  return n;
}

// What may follow a port number: "[ext N]" (a chassis' external port) and "(<port guid>)".
void skip_port_details(std::string_view s, std::size_t& at) {
  skip_space(s, at);
  if (s.substr(at).starts_with("[ext ")) {
    const std::size_t end = s.find(']', at);
    if (end != std::string_view::npos) at = end + 1;
  }
  skip_space(s, at);
  if (at < s.size() && s[at] == '(') {
    const std::size_t end = s.find(')', at);
    if (end != std::string_view::npos && hex(s.substr(at + 1, end - at - 1))) at = end + 1;
  }
  skip_space(s, at);
}

struct Node {
  NodeName name;
  std::string description;
};

struct Reader {
  const std::string& origin;
  std::size_t line = 0;
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(origin + ":" + std::to_string(line) + ": " + what);
  }
};

// "Switch	41 "S-..."		# "desc" ...", "Ca	1 "H-..."		# "desc"": the node whose ports
// follow.
Node header(std::string_view line, const Reader& reader) {
  std::size_t at = line.find('"');
  const auto name = at == std::string_view::npos ? std::nullopt : quoted(line, at);
  const auto node = name ? node_name(*name) : std::nullopt;
  if (!node) reader.fail("expected the node's name after its type and port count, \"S-<guid>\" or \"H-<guid>\"");
  const std::size_t hash = line.find('#', at);
  std::size_t desc_at = hash == std::string_view::npos ? hash : line.find('"', hash);
  const auto description = desc_at == std::string_view::npos ? std::nullopt : quoted(line, desc_at);
  if (!description) reader.fail("expected # and the node's description in quotes after its name");
  return Node{*node, std::string(*description)};
}

// One port line of the current node: this end, the far end and the rate printed.
struct PortLine {
  CableEnd near, far;
  std::string rate;
};

PortLine port_line(std::string_view line, const Node& node, const Reader& reader) {
  std::size_t at = 0;
  const auto port = bracketed_number(line, at);
  if (!port) reader.fail("expected a port line, [PORT] then the node cabled to it");
  skip_port_details(line, at);
  const auto far_name = quoted(line, at);
  const auto far = far_name ? node_name(*far_name) : std::nullopt;
  if (!far)
    reader.fail("expected the far end's node, \"S-<guid>\" or \"H-<guid>\", after [" + std::to_string(*port) + "]");
  const auto far_port = bracketed_number(line, at);
  if (!far_port) reader.fail("expected the far end's [PORT] after its node");
  const std::size_t hash = line.find('#', at);
  std::size_t desc_at = hash == std::string_view::npos ? hash : line.find('"', hash);
  const auto description = desc_at == std::string_view::npos ? std::nullopt : quoted(line, desc_at);
  if (!description) reader.fail("expected # and the far end's description in quotes");
  // The rate is the last word: "4xNDR", "4xHDR", "2x25.78125"; absent in some as-built files.
  const std::string_view rest = trimmed(line.substr(desc_at));
  const std::size_t last = rest.find_last_of(" \t");
  std::string rate(last == std::string_view::npos ? rest : rest.substr(last + 1));
  if (rate.find('x') == std::string::npos) rate.clear();
  return PortLine{CableEnd{node.name.guid, node.description, *port, node.name.is_switch},
                  CableEnd{far->guid, std::string(*description), *far_port, far->is_switch}, std::move(rate)};
}

bool is_header(std::string_view line) {
  for (std::string_view type : {"Switch", "Ca", "Rt"})
    if (line.starts_with(type) && line.size() > type.size() && space(line[type.size()])) return true;
  return false;
}

}  // namespace

std::string CableEnd::host() const {
  if (is_switch) return {};
  const std::size_t gap = description.find(' ');
  if (gap == 0 || gap == std::string::npos || description.find(' ', gap + 1) != std::string::npos) return {};
  return description.substr(0, gap);
}

std::string CableEnd::rail() const {
  if (host().empty()) return {};
  return description.substr(description.find(' ') + 1) + ":" + std::to_string(port);
}

std::string CableEnd::switch_name() const {
  if (!is_switch) return {};
  // A managed switch's description: "MF0;<hostname>:<model>/U1".
  const std::size_t semi = description.find(';');
  const std::size_t colon = semi == std::string::npos ? semi : description.find(':', semi + 1);
  if (colon != std::string::npos && colon > semi + 1) return description.substr(semi + 1, colon - semi - 1);
  return description;
}

std::string CableEnd::text() const {
  if (is_switch) return switch_name() + " port " + std::to_string(port);
  if (const std::string h = host(); !h.empty()) return h + " " + rail();
  return "\"" + description + "\" port " + std::to_string(port);
}

std::string Cable::text() const { return a.text() + " <-> " + b.text(); }

const Cable* Cabling::of_port(std::string_view host, std::string_view rail) const {
  const auto at = port_index.find(std::string(host) + " " + std::string(rail));
  return at == port_index.end() ? nullptr : &cables[at->second];
}

std::vector<const Cable*> Cabling::between_switches(std::string_view name) const {
  std::vector<const Cable*> out;
  for (const Cable& c : cables)
    if (c.a.is_switch && c.b.is_switch && (c.a.switch_name() == name || c.b.switch_name() == name)) out.push_back(&c);
  return out;
}

Cabling parse_ibnetdiscover(std::string_view text, const std::string& origin) {
  Cabling cabling;
  cabling.origin = origin;
  Reader reader{origin};
  std::optional<Node> node;
  // Each port's far end as first printed, and the line: a cable is printed from both ends.
  std::map<std::pair<std::string, int>, std::pair<std::pair<std::string, int>, std::size_t>> far_of;
  std::size_t from = 0;
  while (from <= text.size()) {
    std::size_t end = text.find('\n', from);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trimmed(text.substr(from, end - from));
    from = end + 1;
    ++reader.line;
    if (line.empty() || line.front() == '#') continue;
    if (is_header(line)) {
      node = header(line, reader);
      continue;
    }
    if (line.front() != '[') continue;  // vendid=, devid=, sysimgguid=, switchguid=, caguid=, ...
    if (!node) reader.fail("a port line before any node's header (Switch or Ca)");
    PortLine p = port_line(line, *node, reader);
    const std::pair near{p.near.guid, p.near.port};
    const std::pair far{p.far.guid, p.far.port};
    auto say = [](const std::pair<std::string, int>& port) {
      return port.first + "[" + std::to_string(port.second) + "]";
    };
    bool seen = false;
    for (const auto& [self, other] : {std::pair{near, far}, std::pair{far, near}}) {
      const auto known = far_of.find(self);
      if (known == far_of.end()) continue;
      if (known->second.first != other)
        reader.fail("port " + say(self) + " is cabled to " + say(other) + " here and to " + say(known->second.first) +
                    " at line " + std::to_string(known->second.second));
      seen = true;
    }
    if (seen) continue;
    far_of.emplace(near, std::pair{far, reader.line});
    far_of.emplace(far, std::pair{near, reader.line});
    Cable cable{std::move(p.near), std::move(p.far), std::move(p.rate)};
    // An HCA's end first; between switches, in name order (then port), however it was printed.
    if (cable.a.is_switch && (!cable.b.is_switch || std::pair{cable.b.switch_name(), cable.b.port} <
                                                        std::pair{cable.a.switch_name(), cable.a.port}))
      std::swap(cable.a, cable.b);
    for (const CableEnd* side : {&cable.a, &cable.b})
      if (const std::string host = side->host(); !host.empty())
        cabling.port_index.emplace(host + " " + side->rail(), cabling.cables.size());
    cabling.cables.push_back(std::move(cable));
  }
  return cabling;
}

Cabling read_cabling(const std::string& path) {
  return parse_ibnetdiscover(read_bounded_file(path, kCablingMaxBytes), path);
}

}  // namespace ibgpu
