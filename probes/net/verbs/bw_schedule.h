#pragma once
// Pure rules of the RDMA-write bandwidth loop.
#include <cstddef>
#include <vector>

namespace ibgpu::verbs {

// CQ moderation as perftest does it: signal every 100th write, since a
// completion per write makes the CQ the bottleneck for small messages; above
// 8 KiB one per write costs nothing and gives finer progress. Never more than
// the queue depth, or the queue fills with writes nobody will ever see complete.
int signal_interval(std::size_t size, int tx_depth);

// Whether write `index` (0-based) of `count` is signalled: every interval-th,
// and always the last, so the loop knows when everything has landed.
bool should_signal(int index, int count, int interval);

// Where a write lands: cycle through the slots of a region.
std::size_t slot_offset(int index, std::size_t size, std::size_t region_bytes);

// Progress seen by the initiator: at `seconds` after the first post, `messages` had completed.
struct Progress {
  double seconds = 0;
  long long messages = 0;
};

// The best rate over consecutive stretches holding at least `min_messages`
// completions and lasting at least `min_seconds`, in messages per second; 0
// when there is no such stretch. Marks are in time order, the first {0, 0}.
// The time floor matters: completions reach the CQ in bursts (Soft-RoCE
// especially), and a burst polled at once would claim an absurd rate.
double peak_message_rate(const std::vector<Progress>& marks, long long min_messages, double min_seconds);

}  // namespace ibgpu::verbs
