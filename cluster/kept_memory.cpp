#include "cluster/kept_memory.h"

#include <atomic>
#include <mutex>
#include <vector>

namespace ibgpu {

namespace {

std::mutex g_mutex;
// Allocated once and never destroyed: no destructor frees it while MPI tears down at exit.
std::vector<std::shared_ptr<const void>>& kept() {
  static auto* memory = new std::vector<std::shared_ptr<const void>>();
  return *memory;
}

}  // namespace

void keep_until_exit(std::shared_ptr<const void> memory) {
  if (!memory) return;
  const std::lock_guard<std::mutex> lock(g_mutex);
  kept().push_back(std::move(memory));
}

namespace {
std::atomic<std::size_t> g_abandoned{0};
}  // namespace

void note_abandoned_request() { ++g_abandoned; }

std::size_t abandoned_requests() { return g_abandoned.load(); }

std::size_t kept_until_exit_count() {
  const std::lock_guard<std::mutex> lock(g_mutex);
  return kept().size();
}

}  // namespace ibgpu
