#include "core/cabling.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "core/bounded_input.h"
#include "core/text.h"

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

// The lines of `text` (core/text.h's for_each_line), blank ones skipped, with the reader's line
// number kept.
template <class Each>
void each_numbered_line(std::string_view text, Reader& reader, Each each) {
  for_each_line(text, [&](std::string_view line) {
    ++reader.line;
    if (!line.empty()) each(line);
    return false;
  });
}

// The cables read so far, each kept once (a cable is printed from both of its ends), and a port
// cabled to two places refused.
class CableBook {
 public:
  explicit CableBook(const std::string& origin) : reader{origin} { cabling_.origin = origin; }

  void add(PortLine p) {
    const std::pair near{p.near.guid, p.near.port};
    const std::pair far{p.far.guid, p.far.port};
    auto say = [](const std::pair<std::string, int>& port) {
      return port.first + "[" + std::to_string(port.second) + "]";
    };
    bool seen = false;
    for (const auto& [self, other] : {std::pair{near, far}, std::pair{far, near}}) {
      const auto known = far_of_.find(self);
      if (known == far_of_.end()) continue;
      if (known->second.first != other)
        reader.fail("port " + say(self) + " is cabled to " + say(other) + " here and to " + say(known->second.first) +
                    " at line " + std::to_string(known->second.second));
      seen = true;
    }
    if (seen) return;
    far_of_.emplace(near, std::pair{far, reader.line});
    far_of_.emplace(far, std::pair{near, reader.line});
    Cable cable{std::move(p.near), std::move(p.far), std::move(p.rate)};
    // An HCA's end first; between switches, in name order (then port), however it was printed.
    if (cable.a.is_switch && (!cable.b.is_switch || std::pair{cable.b.switch_name(), cable.b.port} <
                                                        std::pair{cable.a.switch_name(), cable.a.port}))
      std::swap(cable.a, cable.b);
    for (const CableEnd* side : {&cable.a, &cable.b})
      if (const std::string host = side->host(); !host.empty())
        cabling_.port_index.emplace(host + " " + side->rail(), cabling_.cables.size());
    cabling_.cables.push_back(std::move(cable));
  }
  Cabling take() { return std::move(cabling_); }

  Reader reader;

 private:
  Cabling cabling_;
  // Each port's far end as first printed, and the line.
  std::map<std::pair<std::string, int>, std::pair<std::pair<std::string, int>, std::size_t>> far_of_;
};

// ---- iblinkinfo's form --------------------------------------------------------------------------
//   CA: h4 mlx5_0:
//         0x0c42a10300b1c241     14    1[  ] ==( 4X   2.5 Gbps Active/  LinkUp)==>   3    1[  ] "MF0;leaf2:MQM9700/U1"
//         ( )
//   Switch: 0xb83fd203004d6a80 MF0;leaf2:MQM9700/U1:
//              3    1[  ] ==( 4X   2.5 Gbps Active/  LinkUp)==>  14    1[  ] "h4 mlx5_0" ( )
//              3    4[  ] ==(       Down/ Polling)==>             [  ] "" ( )
// An HCA's port line starts with its port GUID, a switch's with its LID; the far end is a LID, a
// port and a description.

bool is_iblinkinfo(std::string_view text) {
  return text.starts_with("CA: ") || text.starts_with("Switch: ") || text.find("\nCA: ") != std::string_view::npos ||
         text.find("\nSwitch: 0x") != std::string_view::npos;
}

std::optional<Node> linkinfo_header(std::string_view line, const Reader& reader) {
  const bool is_switch = line.starts_with("Switch: ");
  if (!is_switch && !line.starts_with("CA: ")) return std::nullopt;
  if (line.back() != ':') reader.fail("expected the node's description to end with ':'");
  std::string_view rest = line.substr(is_switch ? 8 : 4);
  rest.remove_suffix(1);
  std::string guid;
  if (is_switch) {
    const std::size_t gap = rest.find(' ');
    if (!rest.starts_with("0x") || gap == std::string_view::npos || !hex(rest.substr(2, gap - 2)))
      reader.fail("expected the switch's GUID, 0x<hex>, then its description");
    guid = std::string(rest.substr(2, gap - 2));
    rest = trimmed(rest.substr(gap));
  }
  return Node{NodeName{is_switch, std::move(guid)}, std::string(rest)};
}

struct LinkLine {
  std::string guid;  // the node's (a switch) or the port's (an HCA)
  int lid = 0, port = 0;
  std::optional<int> far_lid;
  int far_port = 0;
  std::string far_description, rate;
};

std::optional<int> lid_number(std::string_view word) {
  int n = 0;
  if (word.empty() || word.size() > 6) return std::nullopt;
  for (const char c : word) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

// The text before a port's '[', "... LID PORT": both numbers, read from the right.
std::pair<std::optional<int>, std::optional<int>> lid_and_port(std::string_view s) {
  s = trimmed(s);
  const std::size_t gap = s.find_last_of(" \t");
  if (gap == std::string_view::npos) return {std::nullopt, lid_number(s)};
  const std::string_view before = trimmed(s.substr(0, gap));
  const std::size_t gap2 = before.find_last_of(" \t");
  return {lid_number(gap2 == std::string_view::npos ? before : before.substr(gap2 + 1)), lid_number(s.substr(gap + 1))};
}

LinkLine link_line(std::string_view line, const Node& node, const Reader& reader) {
  LinkLine l;
  const std::size_t open = line.find("==(");
  const std::size_t close = line.find(")==>", open);
  const std::size_t bracket = line.rfind('[', open);
  if (close == std::string_view::npos || bracket == std::string_view::npos)
    reader.fail("expected a port line: LID PORT[..] ==( ... )==> LID PORT[..] \"description\"");
  const auto [lid, port] = lid_and_port(line.substr(0, bracket));
  if (!lid || !port) reader.fail("expected the LID and port number before the port's '['");
  l.lid = *lid;
  l.port = *port;
  l.guid = node.name.guid;
  if (!node.name.is_switch) {
    const std::string_view first = line.substr(0, line.find_first_of(" \t"));
    if (!first.starts_with("0x") || !hex(first.substr(2)))
      reader.fail("expected an HCA port line to start with its GUID");
    l.guid = std::string(first.substr(2));
  }
  // The link: "4X  2.5 Gbps Active/  LinkUp" -> "4X 2.5 Gbps"; a port with no link says Down.
  const std::string_view link = trimmed(line.substr(open + 3, close - open - 3));
  const std::size_t slash = link.find('/');
  std::string_view width_speed = trimmed(link.substr(0, link.rfind(' ', slash)));
  for (const char c : width_speed)
    if (!space(c) || (!l.rate.empty() && l.rate.back() != ' ')) l.rate += space(c) ? ' ' : c;
  const std::string_view far = line.substr(close + 4);
  const std::size_t far_bracket = far.find('[');
  std::size_t quote = far.find('"', far_bracket == std::string_view::npos ? 0 : far_bracket);
  const auto description = quote == std::string_view::npos ? std::nullopt : quoted(far, quote);
  if (far_bracket == std::string_view::npos || !description)
    reader.fail("expected the far end's LID, PORT[..] and \"description\" after )==>");
  const auto [far_lid, far_port] = lid_and_port(far.substr(0, far_bracket));
  if (!far_port) {
    if (!trimmed(far.substr(0, far_bracket)).empty()) reader.fail("expected the far end's port number before '['");
    return l;  // nothing at the far end
  }
  if (!far_lid) reader.fail("expected the far end's LID before its port number");
  l.far_lid = far_lid;
  l.far_port = *far_port;
  l.far_description = std::string(*description);
  return l;
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

std::vector<const Cable*> Cabling::of_host(std::string_view host) const {
  std::vector<const Cable*> out;
  for (const Cable& c : cables)
    if (c.a.host() == host || c.b.host() == host) out.push_back(&c);
  return out;
}

std::vector<const Cable*> Cabling::between_switches(std::string_view name) const {
  std::vector<const Cable*> out;
  for (const Cable& c : cables)
    if (c.a.is_switch && c.b.is_switch && (c.a.switch_name() == name || c.b.switch_name() == name)) out.push_back(&c);
  return out;
}

CablingTree tree_of(const Cabling& cabling) {
  FabricTopology tree;
  tree.origin = "the cabling " + cabling.origin;
  std::map<std::string, std::size_t> at;  // switch name -> its place in tree.switches
  auto entry = [&](const std::string& name) -> FabricSwitch& {
    const auto [it, added] = at.try_emplace(name, tree.switches.size());
    if (added) tree.switches.push_back(FabricSwitch{name, {}, {}});
    return tree.switches[it->second];
  };
  auto add_once = [](std::vector<std::string>& list, const std::string& name) {
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  };
  std::map<std::string, std::vector<std::string>> next_to;  // switch -> switches cabled to it
  for (const Cable& c : cabling.cables) {
    if (c.a.is_switch && c.b.is_switch) {
      add_once(next_to[c.a.switch_name()], c.b.switch_name());
      add_once(next_to[c.b.switch_name()], c.a.switch_name());
      continue;
    }
    const CableEnd& hca = c.a.is_switch ? c.b : c.a;
    const CableEnd& sw = c.a.is_switch ? c.a : c.b;
    const std::string host = hca.host();
    if (!sw.is_switch || host.empty()) continue;
    const std::string leaf = sw.switch_name();
    const auto [placed, first] = tree.leaf_of.try_emplace(host, leaf);
    if (!first && placed->second != leaf)
      return {std::nullopt, "host " + host + " is cabled to " + placed->second + " and " + leaf +
                                " (a rail-optimised fabric: a topology.conf tree gives a host one leaf)"};
    add_once(entry(leaf).nodes, host);
  }
  if (tree.switches.empty()) return {std::nullopt, "no HCA port of a named host is cabled to a switch"};
  // Level by level: the switches cabled to the level below, not placed yet, list it.
  std::vector<std::string> level;
  for (const FabricSwitch& s : tree.switches) level.push_back(s.name);
  std::set<std::string> placed(level.begin(), level.end());
  while (!level.empty()) {
    std::vector<std::string> above;
    for (const std::string& below : level)
      for (const std::string& s : next_to[below]) {
        if (placed.count(s)) continue;
        add_once(entry(s).switches, below);
        add_once(above, s);
      }
    placed.insert(above.begin(), above.end());
    level = std::move(above);
  }
  return {std::move(tree), {}};
}

Cabling parse_ibnetdiscover(std::string_view text, const std::string& origin) {
  CableBook book(origin);
  std::optional<Node> node;
  each_numbered_line(text, book.reader, [&](std::string_view line) {
    if (line.front() == '#') return;
    if (is_header(line)) {
      node = header(line, book.reader);
      return;
    }
    if (line.front() != '[') return;  // vendid=, devid=, sysimgguid=, switchguid=, caguid=, ...
    if (!node) book.reader.fail("a port line before any node's header (Switch or Ca)");
    book.add(port_line(line, *node, book.reader));
  });
  return book.take();
}

Cabling parse_iblinkinfo(std::string_view text, const std::string& origin) {
  CableBook book(origin);
  // First the nodes by LID (a port line names its far end by LID and description only), then
  // the cables.
  std::map<int, Node> by_lid;
  std::optional<Node> node;
  for (const bool cabling : {false, true}) {
    book.reader.line = 0;
    node.reset();
    each_numbered_line(text, book.reader, [&](std::string_view line) {
      if (auto h = linkinfo_header(line, book.reader)) {
        node = std::move(h);
        return;
      }
      if (line.find("==(") == std::string_view::npos) return;  // a title, a blank or a summary line
      if (!node) book.reader.fail("a port line before any node's header (CA: or Switch:)");
      LinkLine l = link_line(line, *node, book.reader);
      if (!cabling) {
        by_lid.try_emplace(l.lid, Node{NodeName{node->name.is_switch, l.guid}, node->description});
        return;
      }
      if (!l.far_lid) return;  // a port with nothing at its end (Down)
      const auto far = by_lid.find(*l.far_lid);
      if (far == by_lid.end())
        book.reader.fail("port " + std::to_string(l.port) + "'s far end, LID " + std::to_string(*l.far_lid) +
                         ", is no node this output lists");
      if (far->second.description != l.far_description)
        book.reader.fail("LID " + std::to_string(*l.far_lid) + " is \"" + far->second.description + "\" but here \"" +
                         l.far_description + "\"");
      book.add(PortLine{
          CableEnd{l.guid, node->description, l.port, node->name.is_switch},
          CableEnd{far->second.name.guid, far->second.description, l.far_port, far->second.name.is_switch}, l.rate});
    });
  }
  return book.take();
}

Cabling read_cabling(const std::string& path) {
  const std::string text = read_bounded_file(path, kCablingMaxBytes);
  return is_iblinkinfo(text) ? parse_iblinkinfo(text, path) : parse_ibnetdiscover(text, path);
}

}  // namespace ibgpu
