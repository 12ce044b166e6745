#pragma once
// GID choice for RoCE. On an Ethernet link layer every packet carries a GRH,
// so the GID index decides the protocol (RoCE v1 = L2 only, v2 = UDP/IP,
// routable) and the address family. A wrong pick connects nothing: the QP
// reaches RTS and every write ends in "transport retry counter exceeded".
#include <infiniband/verbs.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibgpu::verbs {

using Gid = std::array<std::uint8_t, 16>;

enum class GidType : std::uint8_t { ib = 0, roce_v1 = 1, roce_v2 = 2 };
const char* to_string(GidType type);  // "IB", "RoCE v1", "RoCE v2"

struct GidEntry {
  int index = 0;
  Gid gid{};
  GidType type = GidType::ib;
};

bool is_zero(const Gid& gid);
bool is_ipv4_mapped(const Gid& gid);  // ::ffff:a.b.c.d
// fe80::/10, or an IPv4-mapped 169.254.0.0/16: not routable beyond the link.
bool is_link_local(const Gid& gid);
std::string format_gid(const Gid& gid);  // "::ffff:10.0.0.1", "fe80::1"

// ibv_ah_attr.grh.sgid_index is 8 bits: entries above cannot be used from verbs.
inline constexpr int kMaxGidIndex = 255;

// Pure: the index to use when none was given. Prefers RoCE v2, then
// non-link-local, then IPv4-mapped, then the lowest index; all-zero entries
// never qualify. nullopt when nothing does.
std::optional<int> choose_gid(const std::vector<GidEntry>& table);

// Pure: `requested` >= 0 must name a non-zero entry of `table`, else a
// UsageError naming the index and the valid ones; -1 picks with choose_gid
// (std::runtime_error when nothing qualifies). `where` is "rxe0:1".
GidEntry select_gid(const std::vector<GidEntry>& table, int requested, const std::string& where);

// The valid entries of one port: ibv_query_gid_table, falling back to
// ibv_query_gid_ex per index where the kernel lacks the table ioctl.
std::vector<GidEntry> read_gid_table(ibv_context* context, std::uint8_t port, int port_table_len);

}  // namespace ibgpu::verbs
