#include "probes/net/verbs/connection.h"

#include <algorithm>
#include <cstring>

namespace ibgpu::verbs {

namespace {

constexpr std::uint8_t kVersion = 2;  // 2: the node GUID at 64, the notice's bytes at 8
constexpr std::array<std::uint8_t, 4> kConnectionMagic{'I', 'B', 'G', 'C'};
constexpr std::array<std::uint8_t, 4> kNoticeMagic{'I', 'B', 'G', 'N'};
constexpr std::size_t kMessageOffset = kWireBytes - kMessageBytes - 1;  // text is always NUL-terminated

template <class T>
void put(WireBytes& out, std::size_t at, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i)
    out[at + i] = static_cast<std::uint8_t>(static_cast<std::uint64_t>(value) >> (8 * i));
}

template <class T>
T get(const WireBytes& in, std::size_t at) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) value |= static_cast<std::uint64_t>(in[at + i]) << (8 * i);
  return static_cast<T>(value);
}

void put_text(WireBytes& out, const std::string& text) {
  const std::size_t n = std::min(text.size(), kMessageBytes);
  std::memcpy(out.data() + kMessageOffset, text.data(), n);
}

std::string get_text(const WireBytes& in) {
  const auto* begin = reinterpret_cast<const char*>(in.data() + kMessageOffset);
  return std::string(begin, strnlen(begin, kMessageBytes));
}

WireBytes header(const std::array<std::uint8_t, 4>& magic) {
  WireBytes out{};
  std::copy(magic.begin(), magic.end(), out.begin());
  out[4] = kVersion;
  return out;
}

bool has_header(const WireBytes& in, const std::array<std::uint8_t, 4>& magic) {
  return std::equal(magic.begin(), magic.end(), in.begin()) && in[4] == kVersion;
}

}  // namespace

WireBytes encode(const ConnectionInfo& info) {
  WireBytes out = header(kConnectionMagic);
  out[5] = static_cast<std::uint8_t>(info.state);
  out[6] = info.mtu;
  out[7] = info.link_layer;
  put(out, 8, info.lid);
  out[10] = static_cast<std::uint8_t>(info.gid_type);
  put(out, 12, info.qpn);
  put(out, 16, info.psn);
  put(out, 20, info.rkey);
  put(out, 24, info.addr);
  put(out, 32, info.region_bytes);
  std::copy(info.gid.begin(), info.gid.end(), out.begin() + 40);
  put(out, 56, static_cast<std::uint32_t>(info.gid_index));
  put(out, 64, info.node_guid);
  put_text(out, info.message);
  return out;
}

std::optional<ConnectionInfo> decode_connection(const WireBytes& in) {
  if (!has_header(in, kConnectionMagic) || in[5] > static_cast<std::uint8_t>(SetupState::usage) ||
      in[10] > static_cast<std::uint8_t>(GidType::roce_v2))
    return std::nullopt;
  ConnectionInfo info;
  info.state = static_cast<SetupState>(in[5]);
  info.mtu = in[6];
  info.link_layer = in[7];
  info.lid = get<std::uint16_t>(in, 8);
  info.gid_type = static_cast<GidType>(in[10]);
  info.qpn = get<std::uint32_t>(in, 12);
  info.psn = get<std::uint32_t>(in, 16);
  info.rkey = get<std::uint32_t>(in, 20);
  info.addr = get<std::uint64_t>(in, 24);
  info.region_bytes = get<std::uint64_t>(in, 32);
  std::copy(in.begin() + 40, in.begin() + 56, info.gid.begin());
  info.gid_index = static_cast<std::int32_t>(get<std::uint32_t>(in, 56));
  info.node_guid = get<std::uint64_t>(in, 64);
  info.message = get_text(in);
  return info;
}

WireBytes encode(const Notice& notice) {
  WireBytes out = header(kNoticeMagic);
  out[5] = static_cast<std::uint8_t>(notice.code);
  put(out, 8, notice.bytes);
  put_text(out, notice.text);
  return out;
}

std::optional<Notice> decode_notice(const WireBytes& in) {
  if (!has_header(in, kNoticeMagic) || in[5] > static_cast<std::uint8_t>(NoticeCode::timeout)) return std::nullopt;
  return Notice{static_cast<NoticeCode>(in[5]), get_text(in), get<std::uint64_t>(in, 8)};
}

std::string incompatibility(const ConnectionInfo& mine, const ConnectionInfo& peer) {
  if (mine.link_layer != peer.link_layer)
    return std::string("link layers differ (") +
           (mine.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand") + " here, " +
           (peer.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand") + " on the peer)";
  if (mine.link_layer != IBV_LINK_LAYER_ETHERNET) return {};
  // RoCE v1 frames and RoCE v2 UDP packets never meet, and a v2 GRH cannot mix address families.
  if (mine.gid_type != peer.gid_type)
    return std::string("GID types differ (") + to_string(mine.gid_type) + " index " + std::to_string(mine.gid_index) +
           " here, " + to_string(peer.gid_type) + " index " + std::to_string(peer.gid_index) +
           " on the peer): choose matching GID indices";
  if (mine.gid_type == GidType::roce_v2 && is_ipv4_mapped(mine.gid) != is_ipv4_mapped(peer.gid))
    return "GID address families differ (" + format_gid(mine.gid) + " here, " + format_gid(peer.gid) +
           " on the peer): choose matching GID indices";
  return {};
}

}  // namespace ibgpu::verbs
