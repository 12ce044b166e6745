#include "cluster/pairs.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "core/text.h"

namespace ibgpu {

namespace {

NodePair normalised(int x, int y) { return x < y ? NodePair{x, y} : NodePair{y, x}; }

std::string pair_text(const NodePair& p) { return std::to_string(p.a) + "-" + std::to_string(p.b); }

// Digits only: a sign or a trailing character is a typo, not a node index.
bool parse_index(std::string_view text, int& out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc{} && ptr == end && text.front() != '-';
}

}  // namespace

int all_pairs_round_count(int n) { return n < 2 ? 0 : (n % 2 == 0 ? n - 1 : n); }

Round circle_round(int n, int r) {
  // Odd n: add a phantom node; whoever meets it in a round is that round's idle node.
  const int m = n % 2 == 0 ? n : n + 1;
  const int fixed = m - 1;
  const int ring = m - 1;  // nodes 0..m-2 rotate around the fixed node
  Round round;
  round.reserve(static_cast<std::size_t>(n / 2));
  if (fixed < n) round.push_back(normalised(r, fixed));
  for (int k = 1; k < m / 2; ++k) round.push_back(normalised((r + k) % ring, (r - k + ring) % ring));
  return round;
}

std::vector<Round> all_pairs_rounds(int n) {
  const int count = all_pairs_round_count(n);
  std::vector<Round> rounds;
  rounds.reserve(static_cast<std::size_t>(count));
  for (int r = 0; r < count; ++r) rounds.push_back(circle_round(n, r));
  return rounds;
}

std::vector<Round> spread_rounds(int n, int k) {
  const int count = all_pairs_round_count(n);
  if (k >= count) return all_pairs_rounds(n);
  std::vector<Round> rounds;
  rounds.reserve(static_cast<std::size_t>(std::max(k, 0)));
  // In round r node i meets node 2r - i round the ring of `count` (odd) nodes, so evenly spaced
  // offsets 2r, not rounds r, spread a node's peers: r = offset x the inverse of 2. The spacing
  // is odd, so the peers also differ modulo every power of two below k: a fabric that routes by
  // destination modulo its uplink count (a power of two) sends them over different uplinks, and
  // one bad uplink cannot make a node look bad with every peer.
  const long long half = (count + 1) / 2;  // 2 x half = 1 modulo count
  long long spacing = count / k;           // >= 1: k < count
  if (spacing % 2 == 0) --spacing;
  for (int j = 0; j < k; ++j) rounds.push_back(circle_round(n, static_cast<int>(j * spacing * half % count)));
  return rounds;
}

Round leaf_round(const std::vector<int>& leaf_of) {
  Round round;
  std::map<int, int> waiting;  // leaf -> the node waiting there for a partner
  for (int node = 0; node < static_cast<int>(leaf_of.size()); ++node) {
    if (leaf_of[static_cast<std::size_t>(node)] < 0) continue;
    const auto [it, first] = waiting.try_emplace(leaf_of[static_cast<std::size_t>(node)], node);
    if (first) continue;
    round.push_back({it->second, node});
    waiting.erase(it);
  }
  std::sort(round.begin(), round.end(), [](const NodePair& x, const NodePair& y) { return x.a < y.a; });
  return round;
}

std::vector<Round> quick_rounds(int n) {
  if (n < 2) return {};
  std::vector<Round> rounds(1);
  for (int i = 0; i + 1 < n; i += 2) rounds[0].push_back({i, i + 1});
  if (n % 2 == 1) rounds.push_back({{0, n - 1}});
  return rounds;
}

std::vector<Round> rounds_from_pairs(const std::vector<NodePair>& pairs, int n) {
  std::vector<NodePair> unique;
  std::set<std::pair<int, int>> seen;
  for (const auto& given : pairs) {
    for (const int node : {given.a, given.b})
      if (node < 0 || node >= n)
        throw std::invalid_argument("pair " + std::to_string(given.a) + "-" + std::to_string(given.b) + " names node " +
                                    std::to_string(node) + ", but there are " + std::to_string(n) +
                                    " nodes (valid: 0.." + std::to_string(n - 1) + ")");
    if (given.a == given.b)
      throw std::invalid_argument("pair " + pair_text(given) + " pairs node " + std::to_string(given.a) +
                                  " with itself");
    const NodePair p = normalised(given.a, given.b);
    if (seen.insert({p.a, p.b}).second) unique.push_back(p);
  }

  // First fit, not optimal edge colouring: explicit lists are short, and keeping the
  // user's order makes the schedule predictable.
  std::vector<Round> rounds;
  std::vector<std::vector<bool>> busy;  // busy[round][node]
  for (const auto& p : unique) {
    std::size_t r = 0;
    const auto a = static_cast<std::size_t>(p.a), b = static_cast<std::size_t>(p.b);
    while (r < rounds.size() && (busy[r][a] || busy[r][b])) ++r;
    if (r == rounds.size()) {
      rounds.emplace_back();
      busy.emplace_back(static_cast<std::size_t>(n), false);
    }
    rounds[r].push_back(p);
    busy[r][a] = busy[r][b] = true;
  }
  return rounds;
}

std::vector<NodePair> parse_pair_list(const std::string& text) {
  if (trim(text).empty()) throw std::invalid_argument("empty pair list: expected e.g. 0-1,2-3");
  std::vector<NodePair> pairs;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const std::string token = std::string(
        trim(std::string_view(text).substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    const auto dash = token.find('-');
    NodePair p;
    if (dash == std::string::npos || !parse_index(trim(std::string_view(token).substr(0, dash)), p.a) ||
        !parse_index(trim(std::string_view(token).substr(dash + 1)), p.b))
      throw std::invalid_argument("bad pair '" + token + "' in pair list: expected A-B with node indices, e.g. 0-1");
    pairs.push_back(p);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return pairs;
}

}  // namespace ibgpu
