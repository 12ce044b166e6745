#include "probes/net/verbs/loopback.h"

#include <array>
#include <cstdint>
#include <cstring>

#include "core/deadline.h"
#include "core/errors.h"
#include "core/probe_kind.h"
#include "core/units.h"
#include "probes/net/verbs/device_select.h"
#include "probes/net/verbs/endpoint.h"
#include "probes/net/verbs/verbs_check.h"

namespace ibgpu {

namespace {

using namespace verbs;

constexpr std::size_t kChunk = 16 * 1024;  // one write
constexpr int kWrites = 16;                // 256 KiB in all: milliseconds on any port
constexpr std::size_t kBytes = kChunk * kWrites;

std::uint8_t pattern(std::size_t i) { return static_cast<std::uint8_t>((i * 131 + 7) ^ (i >> 8)); }

// Posts the writes, the last one signalled (RC completes in order: its completion means every
// write before it landed), and waits for that completion within the deadline.
void write_all(Endpoint& from, Seconds timeout, const std::string& self) {
  const Deadline deadline(timeout);
  for (int w = 0; w < kWrites; ++w) {
    const std::size_t offset = static_cast<std::size_t>(w) * kChunk;
    from.post_write(offset, offset, kChunk, static_cast<std::uint64_t>(w), w == kWrites - 1, false);
  }
  std::array<ibv_wc, 4> wc{};
  for (;;) {
    const int n = from.poll(wc.data(), static_cast<int>(wc.size()));
    for (int i = 0; i < n; ++i) {
      check_completion(wc[static_cast<std::size_t>(i)], self);
      if (wc[static_cast<std::size_t>(i)].wr_id == kWrites - 1) return;
    }
    if (n == 0 && deadline.expired())
      throw std::runtime_error("no completion of the loopback writes within " + duration_text(timeout));
  }
}

}  // namespace

ProbeResult verbs_loopback(const LoopbackTarget& target) {
  ProbeResult r;
  r.id = kVerbsLoopbackProbe;
  r.scope = Scope{{target.host}, {target.rank}, {target.device}};
  r.params["transport"] = "verbs";
  r.params["bytes"] = kBytes;
  try {
    EndpointOptions options;
    options.device = target.device;
    options.gid_index = target.gid_index;
    options.region_bytes = kBytes;
    options.send_depth = kWrites;
    options.recv_depth = 1;
    Endpoint from(options);
    Endpoint to(options);
    from.connect(to.local_info());
    to.connect(from.local_info());
    r.params.update(from.describe());
    std::uint8_t* source = from.send_region();
    for (std::size_t i = 0; i < kBytes; ++i) source[i] = pattern(i);
    std::memset(to.receive_region(), 0, kBytes);
    write_all(from, target.timeout, "itself (loopback on " + target.device + ")");
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < kBytes; ++i) wrong += to.receive_region()[i] != source[i] ? 1 : 0;
    r.metrics[metrics::checked] = Metric::of(static_cast<double>(kBytes));
    r.metrics[metrics::wrong] = Metric::of(static_cast<double>(wrong));
    if (wrong > 0) {
      r.status = ProbeStatus::failed;
      r.error = std::to_string(wrong) + " of " + std::to_string(kBytes) + " bytes written to itself landed changed";
    }
  } catch (const VerbsUnavailable& e) {
    r.status = ProbeStatus::skipped;
    r.reason = e.what();
  } catch (const std::exception& e) {
    r.status = ProbeStatus::error;
    r.error = e.what();
  }
  return r;
}

}  // namespace ibgpu
