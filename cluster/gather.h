#pragma once
// Per-rank results travel to rank 0 as serialized text. Rank 0 polls with a
// deadline: a rank that never answers is reported missing, never waited on
// forever.
#include <mpi.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cluster/tags.h"
#include "core/deadline.h"

namespace ibgpu {

// Non-blocking receipt of one whole message from a given rank, and of the
// heartbeats that say a rank is still at work.
class Mailbox {
 public:
  virtual ~Mailbox() = default;
  virtual std::optional<std::string> try_receive(int source) = 0;
  virtual std::vector<int> heard_from() = 0;  // ranks that beat since the last call
};

class MpiMailbox final : public Mailbox {
 public:
  MpiMailbox(MPI_Comm comm, int tag) : comm_(comm), tag_(tag) {}
  std::optional<std::string> try_receive(int source) override;
  std::vector<int> heard_from() override;

 private:
  MPI_Comm comm_;
  int tag_;
};

// Two ways in at once, e.g. MPI and the line (cluster/line.h): a rank's message from either.
class BothMailboxes final : public Mailbox {
 public:
  BothMailboxes(Mailbox& first, Mailbox& second) : first_(first), second_(second) {}
  std::optional<std::string> try_receive(int source) override {
    if (auto text = first_.try_receive(source)) return text;
    return second_.try_receive(source);
  }
  std::vector<int> heard_from() override {
    std::vector<int> ranks = first_.heard_from();
    const std::vector<int> more = second_.heard_from();
    ranks.insert(ranks.end(), more.begin(), more.end());
    return ranks;
  }

 private:
  Mailbox& first_;
  Mailbox& second_;
};

struct Gathered {
  std::vector<std::optional<std::string>> payloads;  // by rank; nullopt: never answered
  std::vector<int> missing() const;
};

// Rank 0's side: its own payload plus whatever arrives from ranks 1..size-1.
// A rank is given up on once it has been silent (no result, no heartbeat)
// for `silence`; `overall` bounds the whole wait regardless.
struct GatherLimits {
  Seconds silence{60};
  Seconds overall{3600};
  std::chrono::microseconds poll_interval{200};
  // After a stop request, keep collecting this long from ranks still heard from.
  Seconds stop_grace{0};
  // Ranks already given up on earlier (cluster/liveness.h): read if they send, never waited for.
  std::function<bool(int)> known_lost;
};
Gathered gather_at_root(Mailbox& mailbox, int size, std::string own_payload, const GatherLimits& limits,
                        const ClockFn& clock = &Clock::now);

// A non-root rank's side: send and wait for completion until the deadline.
bool send_with_deadline(MPI_Comm comm, int dest, int tag, const std::string& payload, const Deadline& deadline);

// Spins (no sleeping: latency samples depend on it) until every request
// completes, or `peer` has shown no sign of life (no completion, no
// heartbeat) for `silence`, or has said it is past this rank's step (it will
// not answer here: cluster/liveness.h); then cancels them and returns false.
// A peer silent for `silence` is lost from then on (mark_lost): a later wait for it, in any
// step, ends at once.
// Ends at once when a stop was requested. A non-zero `nap` sleeps that long between tests
// instead: for a side that only waits while its CPU should stay free (the
// responder of an RDMA bandwidth run, where Soft-RoCE's "HCA" is that CPU).
bool wait_for_peer(std::vector<MPI_Request>& requests, int peer, Seconds silence, std::chrono::microseconds nap = {});
// Why such a wait gave up on `peer`, to end an error text: ": it had already left this round"
// or ": silent for S s".
std::string why_given_up(int peer, Seconds silence);

// Every rank of `comm` sends `payload` to rank 0, which waits for each rank
// until it has been silent (no payload, no heartbeat) for `silence`, computes
// one answer from what arrived (nullopt: the rank was silent) and sends it to
// every rank that checked in. On the heartbeat communicator rank 0 does not wait for a
// rank known lost, counts a silent rank lost, and its answer tells every rank that came
// which ranks are lost (cluster/liveness.h). Returns the answer on rank 0 and those ranks;
// nullopt on a rank that heard nothing back from a silent rank 0.
using Decide = std::function<std::string(const std::vector<std::optional<std::string>>& payloads)>;
std::optional<std::string> consult(MPI_Comm comm, int tag, std::string payload, Seconds silence, const Decide& decide);

// Every rank of `comm` checks in with rank 0, which waits for each rank until it
// has been silent (no check-in, no heartbeat) for `silence`, and then tells the
// ranks that checked in who did not: the step before a collective, so that a
// timeout can name the absent ranks instead of hanging in the collective. On
// rank 0 and the ranks it answered: the absent ranks (empty when all are
// there). nullopt on a rank that heard nothing back from a silent rank 0.
std::optional<std::vector<int>> roll_call(MPI_Comm comm, Seconds silence);

// Polls an MPI request until it completes or the deadline expires; on expiry
// the request is cancelled (when MPI allows) and false is returned. Either wait
// giving up leaves the transfer possibly live: its memory must be a
// TransferMemory (cluster/kept_memory.h), abandoned on false.
bool wait_with_deadline(MPI_Request& request, const Deadline& deadline, MPI_Status* status = MPI_STATUS_IGNORE);

}  // namespace ibgpu
