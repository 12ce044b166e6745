#pragma once
// Every wait in ibgpu has a deadline. A requested stop (SIGTERM from the
// launcher, SIGINT from the operator) expires all of them at once, so the run
// winds down and rank 0 still writes its report.
#include <chrono>
#include <functional>

namespace ibgpu {

using Clock = std::chrono::steady_clock;
// Lengths of time: timeouts, graces, waits. Seconds as a double, so 0.5 s and
// 1e4 s both fit.
using Seconds = std::chrono::duration<double>;
using ClockFn = std::function<Clock::time_point()>;

void install_stop_handlers();  // SIGTERM, SIGINT -> request_stop(); SIGPIPE ignored
void request_stop();
bool stop_requested();
// How long ago the stop was requested; zero when it was not.
Seconds since_stop();
// The steady clock in seconds, for code that keeps time as a number (counter rates, live output).
double monotonic_s();

// After a stop, the few steps that deliver results (a rank's send, rank 0's
// gather) stay open this long: the launcher's teardown signals every rank at
// once, and a living rank's results are worth the wait. Short, because the
// launcher follows up with SIGKILL (OpenMPI after 1 s by default).
inline constexpr Seconds kStopGrace{0.25};

class Deadline {
 public:
  explicit Deadline(Seconds budget, ClockFn clock = &Clock::now)
      : clock_(std::move(clock)), end_(clock_() + std::chrono::duration_cast<Clock::duration>(budget)) {}

  // A deadline that a stop request ends only `grace` after the stop.
  Deadline with_stop_grace(Seconds grace) const {
    Deadline d = *this;
    d.stop_grace_ = grace;
    return d;
  }

  bool expired() const { return (stop_requested() && since_stop() >= stop_grace_) || clock_() >= end_; }
  // Expired only by the clock, not by a stop request.
  bool timed_out() const { return clock_() >= end_; }
  Seconds remaining() const {
    const auto left = end_ - clock_();
    return left.count() > 0 ? Seconds(left) : Seconds(0);
  }

 private:
  ClockFn clock_;
  Clock::time_point end_;
  Seconds stop_grace_{0};
};

}  // namespace ibgpu
