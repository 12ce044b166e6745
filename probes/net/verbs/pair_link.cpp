#include "probes/net/verbs/pair_link.h"

#include <mpi.h>

#include <array>
#include <cstdio>
#include <vector>

#include "cluster/gather.h"
#include "cluster/kept_memory.h"
#include "cluster/liveness.h"
#include "core/errors.h"
#include "core/units.h"
#include "core/waits.h"

namespace ibgpu::verbs {

namespace {

// Given up on: cancelled (a receive no longer matches) and left to MPI, never freed under a
// transfer that may still be live (cluster/kept_memory.h).
void cancel(MPI_Request& request) {
  if (request == MPI_REQUEST_NULL) return;
  MPI_Cancel(&request);
  note_abandoned_request();
  request = MPI_REQUEST_NULL;
}

}  // namespace

std::string peer_name(const PairContext& ctx) { return "host " + ctx.peer_host + " rank " + std::to_string(ctx.peer); }

std::string self_name(const PairContext& ctx) { return "host " + ctx.self_host + " rank " + std::to_string(ctx.self); }

std::string silence_text(const PairContext& ctx, const std::string& what, Seconds silence) {
  if (stop_requested()) return "stopped while waiting for " + what + " from " + peer_name(ctx);
  return "no " + what + " from " + peer_name(ctx) + " within " + duration_text(silence);
}

std::optional<WireBytes> swap_images(const PairContext& ctx, int tag_offset, const WireBytes& mine, Seconds timeout,
                                     std::chrono::microseconds nap) {
  // After a cancel that comes too late MPI may still write or read these
  // bytes, so on any failure they are left allocated (1 KiB) rather than
  // freed under a live request.
  auto* buffers = new std::array<WireBytes, 2>{mine, WireBytes{}};
  std::vector<MPI_Request> requests(2, MPI_REQUEST_NULL);
  const int tag = ctx.tag + tag_offset;
  constexpr int kCount = static_cast<int>(kWireBytes);
  try {
    mpi_check(MPI_Irecv((*buffers)[1].data(), kCount, MPI_BYTE, ctx.peer, tag, ctx.comm, &requests[0]), "MPI_Irecv");
    mpi_check(MPI_Isend((*buffers)[0].data(), kCount, MPI_BYTE, ctx.peer, tag, ctx.comm, &requests[1]), "MPI_Isend");
    // Silence, not slowness, ends the wait: the peer's heartbeats restart it.
    // On expiry wait_for_peer cancels and frees the requests itself.
    if (!wait_for_peer(requests, ctx.peer, timeout, nap)) return std::nullopt;
  } catch (...) {
    for (auto& request : requests) cancel(request);
    throw;
  }
  const WireBytes theirs = (*buffers)[1];
  delete buffers;
  return theirs;
}

void send_image(const PairContext& ctx, int tag_offset, const WireBytes& image) {
  auto* buffer = new WireBytes(image);  // left allocated if MPI has not taken it in time (see swap_images)
  MPI_Request send = MPI_REQUEST_NULL;
  if (MPI_Isend(buffer->data(), static_cast<int>(kWireBytes), MPI_BYTE, ctx.peer, ctx.tag + tag_offset, ctx.comm,
                &send) != MPI_SUCCESS) {
    delete buffer;
    return;
  }
  try {
    // Small messages go out eagerly; a second is plenty unless the peer is gone.
    if (wait_with_deadline(send, Deadline{std::chrono::seconds(1)})) delete buffer;
  } catch (const CallError&) {
    cancel(send);
  }
}

AbortWatch::AbortWatch(const PairContext& ctx, int tag_offset)
    : ctx_(ctx), tag_offset_(tag_offset), last_(Clock::now()) {}

void AbortWatch::poll_if_due(Clock::time_point now) {
  if (now - last_ < kAbortListenAfter) return;
  last_ = now;
  int flag = 0;
  MPI_Status status{};
  mpi_check(MPI_Iprobe(ctx_.peer, ctx_.tag + tag_offset_, ctx_.comm, &flag, &status), "MPI_Iprobe");
  if (!flag) return;
  WireBytes image{};
  mpi_check(MPI_Recv(image.data(), static_cast<int>(kWireBytes), MPI_BYTE, ctx_.peer, ctx_.tag + tag_offset_, ctx_.comm,
                     MPI_STATUS_IGNORE),
            "MPI_Recv");
  const auto notice = decode_notice(image);
  throw PeerFailed(peer_name(ctx_) + " stopped: " + (notice ? notice->text : std::string("(unreadable notice)")));
}

void AbortWatch::notify(const std::string& text) const {
  send_image(ctx_, tag_offset_, encode(Notice{NoticeCode::error, text}));
}

void Waiter::check() {
  // Our partner and rank 0 judge us by silence: keep them hearing from us.
  // The peer's own heartbeats do not restart this wait: a live process
  // behind a dead RDMA path is exactly what it must catch.
  heartbeat();
  const auto now = Clock::now();
  if (!since_) {
    since_.emplace(ctx_.timeout);
    started_ = now;
  }
  if (since_->expired()) throw WaitExpired(silence_text(ctx_, what_, ctx_.timeout));
  if (run_ && run_->expired()) {
    if (stop_requested()) throw WaitExpired(silence_text(ctx_, what_, ctx_.timeout));
    throw WaitExpired("the run with " + peer_name(ctx_) + " did not finish within " + duration_text(ctx_.timeout));
  }
  // Only a wait already long by network standards listens for the peer giving up.
  if (abort_ && now - started_ >= kAbortListenAfter) abort_->poll_if_due(now);
}

}  // namespace ibgpu::verbs
