#include "probes/net/verbs/gid.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <tuple>

#include "core/errors.h"
#include "probes/net/verbs/verbs_check.h"

namespace ibgpu::verbs {

namespace {

GidType from_verbs(std::uint32_t type) {
  switch (type) {
    case IBV_GID_TYPE_ROCE_V1:
      return GidType::roce_v1;
    case IBV_GID_TYPE_ROCE_V2:
      return GidType::roce_v2;
    default:
      return GidType::ib;
  }
}

GidEntry from_verbs(const ibv_gid_entry& e) {
  GidEntry out;
  out.index = static_cast<int>(e.gid_index);
  std::memcpy(out.gid.data(), e.gid.raw, out.gid.size());
  out.type = from_verbs(e.gid_type);
  return out;
}

}  // namespace

const char* to_string(GidType type) {
  switch (type) {
    case GidType::roce_v1:
      return "RoCE v1";
    case GidType::roce_v2:
      return "RoCE v2";
    case GidType::ib:
      break;
  }
  return "IB";
}

bool is_zero(const Gid& gid) {
  return std::all_of(gid.begin(), gid.end(), [](std::uint8_t b) { return b == 0; });
}

bool is_ipv4_mapped(const Gid& gid) {
  return std::all_of(gid.begin(), gid.begin() + 10, [](std::uint8_t b) { return b == 0; }) && gid[10] == 0xff &&
         gid[11] == 0xff;
}

bool is_link_local(const Gid& gid) {
  if (is_ipv4_mapped(gid)) return gid[12] == 169 && gid[13] == 254;
  return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80;
}

std::string format_gid(const Gid& gid) {
  char text[INET6_ADDRSTRLEN] = {};
  if (!inet_ntop(AF_INET6, gid.data(), text, sizeof text)) return "?";
  return text;
}

std::optional<int> choose_gid(const std::vector<GidEntry>& table) {
  const GidEntry* best = nullptr;
  auto rank = [](const GidEntry& e) {
    return std::make_tuple(e.type == GidType::roce_v2, !is_link_local(e.gid), is_ipv4_mapped(e.gid), -e.index);
  };
  for (const auto& entry : table) {
    if (is_zero(entry.gid) || entry.index > kMaxGidIndex) continue;
    if (!best || rank(entry) > rank(*best)) best = &entry;
  }
  if (!best) return std::nullopt;
  return best->index;
}

GidEntry select_gid(const std::vector<GidEntry>& table, int requested, const std::string& where) {
  if (requested < 0) {
    const auto index = choose_gid(table);
    if (!index)
      throw std::runtime_error("no usable GID on " + where +
                               " (on RoCE the port's netdev needs an IP address; check `ibv_devinfo -v`)");
    requested = *index;
  }
  std::string valid;
  for (const auto& entry : table) {
    if (is_zero(entry.gid) || entry.index > kMaxGidIndex) continue;
    if (entry.index == requested) return entry;
    valid += (valid.empty() ? "" : ", ") + std::to_string(entry.index) + " (" + to_string(entry.type) + " " +
             format_gid(entry.gid) + ")";
  }
  throw UsageError("GID index " + std::to_string(requested) + " on " + where +
                   " is empty or invalid (valid: " + (valid.empty() ? std::string("none") : valid) + ")");
}

std::vector<GidEntry> read_gid_table(ibv_context* context, std::uint8_t port, int port_table_len) {
  std::vector<GidEntry> out;
  // The table call returns the entries of every port, so size the array for all of them.
  ibv_device_attr device{};
  check_rc(ibv_query_device(context, &device), "ibv_query_device");
  std::size_t capacity = 0;
  for (int p = 1; p <= device.phys_port_cnt; ++p) {
    ibv_port_attr attr{};
    check_rc(ibv_query_port(context, static_cast<std::uint8_t>(p), &attr), "ibv_query_port");
    capacity += static_cast<std::size_t>(std::max(attr.gid_tbl_len, 0));
  }
  if (capacity > 0) {
    std::vector<ibv_gid_entry> entries(capacity);
    const ssize_t n = ibv_query_gid_table(context, entries.data(), entries.size(), 0);
    if (n >= 0) {
      for (ssize_t i = 0; i < n; ++i)
        if (entries[static_cast<std::size_t>(i)].port_num == port)
          out.push_back(from_verbs(entries[static_cast<std::size_t>(i)]));
      std::sort(out.begin(), out.end(), [](const GidEntry& a, const GidEntry& b) { return a.index < b.index; });
      return out;
    }
  }
  // Older kernels: one entry at a time. ENODATA marks an empty slot; other
  // per-entry failures only matter when no entry at all could be read.
  int first_error = 0;
  for (int index = 0; index < port_table_len; ++index) {
    ibv_gid_entry entry{};
    int rc = ibv_query_gid_ex(context, port, static_cast<std::uint32_t>(index), &entry, 0);
    if (rc < 0) rc = errno;
    if (rc == 0)
      out.push_back(from_verbs(entry));
    else if (rc != ENODATA && first_error == 0)
      first_error = rc;
  }
  if (out.empty() && first_error != 0) throw_errno("ibv_query_gid_ex", first_error);
  return out;
}

}  // namespace ibgpu::verbs
