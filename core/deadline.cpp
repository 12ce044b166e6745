#include "core/deadline.h"

#include <time.h>

#include <atomic>
#include <csignal>

namespace ibgpu {

namespace {
volatile std::sig_atomic_t g_stop = 0;
// CLOCK_MONOTONIC in ns (steady_clock's clock on Linux); clock_gettime is async-signal-safe.
std::atomic<long long> g_stop_ns{0};
static_assert(std::atomic<long long>::is_always_lock_free);

long long monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

void mark_stop() {
  long long none = 0;
  g_stop_ns.compare_exchange_strong(none, monotonic_ns());
  g_stop = 1;
}

extern "C" void on_stop_signal(int) { mark_stop(); }
}  // namespace

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  // A write to a pipe or socket whose reader is gone fails with EPIPE instead of killing the
  // process: the terminal's pipe closed (`| head`, a launcher's stdio torn down) or a peer rank's
  // TCP socket reset when its host died (OpenMPI's TCP transport writes with writev, which has
  // no MSG_NOSIGNAL). Either way rank 0 goes on to write its report.
  signal(SIGPIPE, SIG_IGN);
}

void request_stop() { mark_stop(); }
bool stop_requested() { return g_stop != 0; }

double monotonic_s() { return Seconds(Clock::now().time_since_epoch()).count(); }

Seconds since_stop() {
  const long long at = g_stop_ns.load();
  if (g_stop == 0 || at == 0) return Seconds(0);
  return Seconds(static_cast<double>(monotonic_ns() - at) * 1e-9);
}

}  // namespace ibgpu
