#include "probes/net/verbs/bw_schedule.h"

#include <algorithm>

namespace ibgpu::verbs {

int signal_interval(std::size_t size, int tx_depth) {
  constexpr std::size_t kModerationLimit = 8 * 1024;
  constexpr int kModeration = 100;
  if (size > kModerationLimit) return 1;
  return std::max(1, std::min(kModeration, tx_depth));
}

bool should_signal(int index, int count, int interval) {
  return index == count - 1 || (interval <= 1 || (index + 1) % interval == 0);
}

std::size_t slot_offset(int index, std::size_t size, std::size_t region_bytes) {
  const std::size_t slots = size == 0 ? 1 : std::max<std::size_t>(1, region_bytes / size);
  return (static_cast<std::size_t>(index) % slots) * size;
}

double peak_message_rate(const std::vector<Progress>& marks, long long min_messages, double min_seconds) {
  double best = 0;
  std::size_t from = 0;
  for (std::size_t i = 1; i < marks.size(); ++i) {
    const long long messages = marks[i].messages - marks[from].messages;
    const double seconds = marks[i].seconds - marks[from].seconds;
    if (messages < std::max(1LL, min_messages) || seconds < min_seconds) continue;
    if (seconds > 0) best = std::max(best, static_cast<double>(messages) / seconds);
    from = i;
  }
  return best;
}

}  // namespace ibgpu::verbs
