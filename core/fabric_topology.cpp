#include "core/fabric_topology.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <set>

#include "core/bounded_input.h"
#include "core/hostlist.h"
#include "core/text.h"

namespace ibgpu {

namespace {

// The KEY=VALUE words of a line (whitespace separated).
std::vector<std::pair<std::string, std::string_view>> words_of(std::string_view line) {
  std::vector<std::pair<std::string, std::string_view>> out;
  while (!(line = trim(line)).empty()) {
    std::size_t end = 0;
    while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end]))) ++end;
    const std::string_view word = line.substr(0, end);
    const auto eq = word.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == word.size())
      throw InputError(
          "expected KEY=VALUE (SwitchName=, Nodes=, Switches=, LinkSpeed=; BlockName=, BlockSizes=), not '" +
          std::string(word) + "'");
    out.emplace_back(lower(word.substr(0, eq)), word.substr(eq + 1));
    line.remove_prefix(end);
  }
  return out;
}

// One line: a switch (SwitchName=), a block (BlockName=), or the block sizes (BlockSizes= alone:
// `sizes` filled, the switch returned has no name).
FabricSwitch parse_line(std::string_view line, std::size_t& names_left, std::optional<TopologyForm>& form,
                        std::vector<int>& sizes) {
  FabricSwitch sw;
  bool named = false, sized = false;
  std::optional<TopologyForm> line_form;
  auto expand = [&](std::string_view list) {
    auto names = expand_hostlist(list, names_left);
    names_left -= names.size();
    return names;
  };
  auto name = [&](std::string_view key, std::string_view value, TopologyForm f) {
    if (named) throw InputError(std::string(key) + " twice on one line");
    if (value.find_first_of("[],") != std::string_view::npos)
      throw InputError("expected one name after " + std::string(key) + "=, not '" + std::string(value) + "'");
    sw.name = value;
    named = true;
    line_form = f;
  };
  for (const auto& [key, value] : words_of(line)) {
    if (key == "switchname") {
      name("SwitchName", value, TopologyForm::tree);
    } else if (key == "blockname") {
      name("BlockName", value, TopologyForm::block);
    } else if (key == "nodes") {
      sw.nodes = expand(value);
    } else if (key == "switches") {
      sw.switches = expand(value);
    } else if (key == "linkspeed") {
      // Slurm's relative speed of the switch's links: not used to judge.
    } else if (key == "blocksizes") {
      sized = true;
      line_form = TopologyForm::block;
      for (std::string_view rest = value; !rest.empty();) {
        const auto comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
        int n = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
        if (ec != std::errc() || end != item.data() + item.size() || n < 1)
          throw InputError("expected BlockSizes= a list of block sizes (counts of nodes), not '" + std::string(value) +
                           "'");
        sizes.push_back(n);
      }
    } else {
      throw InputError("unknown key '" + key +
                       "' (expected SwitchName, Nodes, Switches, LinkSpeed; or BlockName, Nodes, BlockSizes)");
    }
  }
  if (sized && named) throw InputError("BlockSizes= goes on a line of its own");
  if (!named && !sized) throw InputError("expected a line that starts with SwitchName= or BlockName=");
  if (line_form == TopologyForm::block && !sw.switches.empty())
    throw InputError("a block lists nodes, not switches (Switches= is topology/tree's)");
  if (form && *form != *line_form)
    throw InputError(std::string(*line_form == TopologyForm::block ? "a topology/block line" : "a topology/tree line") +
                     " in a file of the other form: a topology.conf is one or the other");
  form = line_form;
  return sw;
}

// Every switch below a spine is defined, and no switch is below itself.
void check_switch_tree(const FabricTopology& t, const std::vector<std::size_t>& line_of, const std::string& origin) {
  std::set<std::string> defined;
  for (const auto& sw : t.switches) defined.insert(sw.name);
  for (std::size_t i = 0; i < t.switches.size(); ++i) {
    const std::string where = origin + ":" + std::to_string(line_of[i]) + ": ";
    for (const auto& child : t.switches[i].switches)
      if (!defined.count(child))
        throw InputError(where + "switch " + t.switches[i].name + " lists switch " + child + ", which no line defines");
    std::string up = t.parent(t.switches[i].name);
    for (std::size_t hops = 0; !up.empty(); up = t.parent(up))
      if (up == t.switches[i].name || ++hops > t.switches.size())
        throw InputError(where + "switch " + t.switches[i].name + " is below itself");
  }
}

}  // namespace

std::string FabricTopology::leaf(std::string_view host) const {
  const auto it = leaf_of.find(std::string(host));
  return it == leaf_of.end() ? std::string() : it->second;
}

std::string FabricTopology::parent(std::string_view name) const {
  for (const auto& sw : switches)
    if (std::find(sw.switches.begin(), sw.switches.end(), name) != sw.switches.end()) return sw.name;
  return {};
}

FabricTopology parse_topology_conf(std::string_view text, const std::string& origin) {
  FabricTopology t;
  t.origin = origin;
  std::vector<std::size_t> line_of;  // per switch
  std::size_t names_left = kTopologyMaxNames;
  std::size_t number = 0;
  std::optional<TopologyForm> form;  // the first line's
  while (!text.empty()) {
    ++number;
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    const std::string where = origin + ":" + std::to_string(number) + ": ";
    if (line.size() > kTopologyMaxLine)
      throw InputError(where + "a line of more than " + std::to_string(kTopologyMaxLine) + " bytes");
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    try {
      FabricSwitch sw = parse_line(line, names_left, form, t.block_sizes);
      if (sw.name.empty()) continue;  // BlockSizes=
      const std::string what = *form == TopologyForm::block ? "block " : "switch ";
      for (const auto& earlier : t.switches)
        if (earlier.name == sw.name) throw InputError(what + sw.name + " is defined twice");
      if (*form == TopologyForm::block && sw.nodes.empty()) throw InputError("block " + sw.name + " lists no Nodes=");
      for (const auto& host : sw.nodes) {
        const auto [it, fresh] = t.leaf_of.emplace(host, sw.name);
        if (!fresh)
          throw InputError("host " + host + " is on two " + (*form == TopologyForm::block ? "blocks" : "switches") +
                           " (" + it->second + " and " + sw.name + ")");
      }
      t.switches.push_back(std::move(sw));
      line_of.push_back(number);
    } catch (const InputError& e) {
      throw InputError(where + e.what());
    }
  }
  if (t.switches.empty())
    throw InputError(origin + ": no SwitchName= or BlockName= line: expected Slurm's topology.conf");
  t.form = *form;
  check_switch_tree(t, line_of, origin);
  return t;
}

FabricTopology read_topology_conf(const std::string& path) {
  return parse_topology_conf(read_bounded_file(path, kTopologyMaxBytes), path);
}

std::vector<std::string> unplaced_hosts(const FabricTopology& topology, const std::vector<std::string>& hosts) {
  std::vector<std::string> out;
  for (const auto& h : hosts)
    if (!topology.leaf_of.count(h)) out.push_back(h);
  return out;
}

std::vector<int> leaf_numbers(const FabricTopology& topology, const std::vector<std::string>& hosts) {
  std::map<std::string, int> number;
  std::vector<int> out;
  for (const auto& h : hosts) {
    const std::string leaf = topology.leaf(h);
    out.push_back(leaf.empty() ? -1 : number.try_emplace(leaf, static_cast<int>(number.size())).first->second);
  }
  return out;
}

}  // namespace ibgpu
