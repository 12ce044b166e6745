#pragma once
// The MPI side of a verbs pair: swapping fixed-size images with a deadline,
// and waiting on the RDMA side (completions, a polled byte) without ever
// waiting forever. Every wait checks its deadline and stop_requested(), and
// may listen for the peer announcing that it gave up.
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/deadline.h"
#include "probes/net/pair_probe.h"
#include "probes/net/verbs/connection.h"

namespace ibgpu::verbs {

// The peer stayed silent past the deadline, or a stop was requested: status `timeout`.
class WaitExpired : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The peer announced a failure of its own: status `error`, text from the peer.
class PeerFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A failure of our own that the peer has already been told about: recorded
// here, with nothing more to send.
class AnnouncedFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string peer_name(const PairContext& ctx);  // "host b rank 1"
std::string self_name(const PairContext& ctx);  // "host a rank 0"
// "no completion from host b rank 1 within 60 s"; "stopped while waiting for completion from host b rank 1".
std::string silence_text(const PairContext& ctx, const std::string& what, Seconds silence);

// Sends `mine` and receives the peer's image on ctx.tag + tag_offset at the
// same time; nullopt if `timeout` (or a stop request) comes first. `nap`
// (see wait_for_peer) is for a side with nothing to do until the swap.
std::optional<WireBytes> swap_images(const PairContext& ctx, int tag_offset, const WireBytes& mine, Seconds timeout,
                                     std::chrono::microseconds nap = {});

// One-way, best effort: used to tell a peer that is busy spinning that we stopped.
void send_image(const PairContext& ctx, int tag_offset, const WireBytes& image);

inline constexpr std::chrono::milliseconds kAbortListenAfter{20};

// Listens, at most every 20 ms, for a Notice the peer sends when it gives up
// mid-run; throws PeerFailed. Only slow waits reach it, so it never touches
// the latency of a healthy round trip.
class AbortWatch {
 public:
  AbortWatch(const PairContext& ctx, int tag_offset);
  void poll_if_due(Clock::time_point now);
  void notify(const std::string& text) const;  // our side gave up

 private:
  const PairContext& ctx_;
  int tag_offset_;
  Clock::time_point last_;
};

// One wait. tick() once per empty poll or spin: it reads the clock only every
// 16384 calls, and only starts the clock at the first such read, so a wait
// that ends quickly costs nothing measurable. A healthy round trip ends well
// before the first read, even where a clock read is a system call of
// microseconds (HPET or xen clocksource) that would otherwise delay seeing
// the byte or completion that ends the wait; deadlines are seconds, so
// checking them every 16384 spins (microseconds to milliseconds) loses nothing.
class Waiter {
 public:
  Waiter(const PairContext& ctx, const char* what, const Deadline* run = nullptr, AbortWatch* abort = nullptr)
      : ctx_(ctx), what_(what), run_(run), abort_(abort) {}
  void tick() {
    if ((++spins_ & 16383u) == 0) check();
  }
  void progress() { since_.reset(); }  // something arrived: the silence deadline starts over

 private:
  void check();
  const PairContext& ctx_;
  const char* what_;
  const Deadline* run_;
  AbortWatch* abort_;
  unsigned spins_ = 0;
  std::optional<Deadline> since_;
  Clock::time_point started_{};
};

}  // namespace ibgpu::verbs
