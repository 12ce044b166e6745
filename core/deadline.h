#pragma once
// Every wait in ibgpu has a deadline. A requested stop (SIGTERM from the
// launcher, SIGINT from the operator) expires all of them at once, so the run
// winds down and rank 0 still writes its report.
#include <chrono>
#include <functional>

namespace ibgpu {

using Clock = std::chrono::steady_clock;
using ClockFn = std::function<Clock::time_point()>;

void install_stop_handlers();  // SIGTERM, SIGINT -> request_stop()
void request_stop();
bool stop_requested();
// How long ago the stop was requested; zero when it was not.
std::chrono::duration<double> since_stop();

// After a stop, the few steps that deliver results (a rank's send, rank 0's
// gather) stay open this long: the launcher's teardown signals every rank at
// once, and a living rank's results are worth the wait. Short, because the
// launcher follows up with SIGKILL (OpenMPI after 1 s by default).
inline constexpr std::chrono::duration<double> kStopGrace{0.25};

class Deadline {
 public:
  explicit Deadline(std::chrono::duration<double> budget, ClockFn clock = &Clock::now)
      : clock_(std::move(clock)), end_(clock_() + std::chrono::duration_cast<Clock::duration>(budget)) {}

  // A deadline that a stop request ends only `grace` after the stop.
  Deadline with_stop_grace(std::chrono::duration<double> grace) const {
    Deadline d = *this;
    d.stop_grace_ = grace;
    return d;
  }

  bool expired() const { return (stop_requested() && since_stop() >= stop_grace_) || clock_() >= end_; }
  // Expired only by the clock, not by a stop request.
  bool timed_out() const { return clock_() >= end_; }
  std::chrono::duration<double> remaining() const {
    const auto left = end_ - clock_();
    return left.count() > 0 ? std::chrono::duration<double>(left) : std::chrono::duration<double>(0);
  }

 private:
  ClockFn clock_;
  Clock::time_point end_;
  std::chrono::duration<double> stop_grace_{0};
};

}  // namespace ibgpu
