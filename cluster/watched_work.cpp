#include "cluster/watched_work.h"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "cluster/kept_memory.h"

namespace ibgpu {

namespace {

// How often the watching thread wakes to look at the deadline and the stop request.
constexpr std::chrono::milliseconds kWatchEvery{5};

// Shared by the two threads: it outlives the call when the work thread is given up on.
struct WorkState {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::exception_ptr error;
  std::atomic<bool> given_up{false};
};

}  // namespace

bool run_watched(WatchedWork work, Seconds limit) {
  auto state = std::make_shared<WorkState>();
  std::thread worker([state, work = std::move(work)] {
    std::exception_ptr error;
    try {
      work(state->given_up);
    } catch (...) {
      error = std::current_exception();
    }
    const std::lock_guard lock(state->mutex);
    state->done = true;
    state->error = error;
    state->finished.notify_all();
  });
  const Deadline deadline(limit);
  std::unique_lock lock(state->mutex);
  while (!state->done && !deadline.expired()) state->finished.wait_for(lock, kWatchEvery);
  if (!state->done) {
    state->given_up = true;
    lock.unlock();
    worker.detach();
    note_abandoned_request();
    return false;
  }
  lock.unlock();
  worker.join();
  if (state->error) std::rethrow_exception(state->error);
  return true;
}

}  // namespace ibgpu
