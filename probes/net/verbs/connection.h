#pragma once
// What two ranks tell each other to connect an RC QP pair (perftest's
// exchange, carried over MPI instead of a TCP socket), and the small notices
// that keep both sides in step. Both travel as fixed 512-byte images with an
// explicit little-endian layout, so padding and compiler never matter.
#include <infiniband/verbs.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "probes/net/verbs/gid.h"

namespace ibgpu::verbs {

inline constexpr std::size_t kWireBytes = 512;
using WireBytes = std::array<std::uint8_t, kWireBytes>;

// Whether the sender could set up its side; the text says why not. `usage`
// means the operator asked for something that does not exist (exit 64 there).
enum class SetupState : std::uint8_t { ready = 0, failed = 1, skipped = 2, usage = 3 };

struct ConnectionInfo {
  SetupState state = SetupState::ready;
  std::string message;    // at most kMessageBytes on the wire; longer text is cut
  std::uint16_t lid = 0;  // 0 on RoCE
  std::uint32_t qpn = 0;
  std::uint32_t psn = 0;  // 24 bits
  std::uint32_t rkey = 0;
  std::uint64_t addr = 0;          // start of the receive region (an iova for GPU memory)
  std::uint64_t region_bytes = 0;  // writable bytes at addr
  Gid gid{};
  std::int32_t gid_index = -1;
  GidType gid_type = GidType::ib;
  std::uint8_t mtu = IBV_MTU_1024;  // the port's active MTU (enum ibv_mtu)
  std::uint8_t link_layer = IBV_LINK_LAYER_UNSPECIFIED;
  std::uint64_t node_guid = 0;  // the HCA's, as ibv_query_device gives it: two ends on one HCA share it

  bool operator==(const ConnectionInfo&) const = default;
};

enum class NoticeCode : std::uint8_t { ok = 0, error = 1, timeout = 2 };

struct Notice {
  NoticeCode code = NoticeCode::ok;
  std::string text;
  std::uint64_t bytes = 0;  // the bandwidth initiator's end of a size: the bytes it wrote, warmup included
  bool operator==(const Notice&) const = default;
};

inline constexpr std::size_t kMessageBytes = 439;  // after the fields, which end at byte 72

WireBytes encode(const ConnectionInfo& info);
WireBytes encode(const Notice& notice);
// nullopt when the bytes are not this kind of image of this version.
std::optional<ConnectionInfo> decode_connection(const WireBytes& bytes);
std::optional<Notice> decode_notice(const WireBytes& bytes);

// Pure: why two sides cannot talk even though each is ready (different link
// layers, RoCE v1 against v2, IPv4 against IPv6 GIDs); empty when they can.
std::string incompatibility(const ConnectionInfo& mine, const ConnectionInfo& peer);

}  // namespace ibgpu::verbs
