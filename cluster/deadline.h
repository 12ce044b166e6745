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

class Deadline {
 public:
  explicit Deadline(std::chrono::duration<double> budget, ClockFn clock = &Clock::now)
      : clock_(std::move(clock)),
        end_(clock_() + std::chrono::duration_cast<Clock::duration>(budget)) {}

  bool expired() const { return stop_requested() || clock_() >= end_; }
  // Expired only by the clock, not by a stop request.
  bool timed_out() const { return clock_() >= end_; }
  std::chrono::duration<double> remaining() const {
    const auto left = end_ - clock_();
    return left.count() > 0 ? std::chrono::duration<double>(left) : std::chrono::duration<double>(0);
  }

 private:
  ClockFn clock_;
  Clock::time_point end_;
};

}  // namespace ibgpu
