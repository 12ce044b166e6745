#include "cluster/gather.h"

#include <cstdio>
#include <thread>

#include "cluster/kept_memory.h"
#include "cluster/liveness.h"
#include "core/errors.h"
#include "core/text.h"
#include "core/units.h"
#include "core/waits.h"

namespace ibgpu {

std::vector<int> Gathered::missing() const {
  std::vector<int> ranks;
  for (std::size_t r = 0; r < payloads.size(); ++r)
    if (!payloads[r]) ranks.push_back(static_cast<int>(r));
  return ranks;
}

std::optional<std::string> MpiMailbox::try_receive(int source) {
  int flag = 0;
  MPI_Status status{};
  mpi_check(MPI_Iprobe(source, tag_, comm_, &flag, &status), "MPI_Iprobe");
  if (!flag) return std::nullopt;
  int count = 0;
  mpi_check(MPI_Get_count(&status, MPI_CHAR, &count), "MPI_Get_count");
  std::string text(static_cast<std::size_t>(count), '\0');
  mpi_check(MPI_Recv(text.data(), count, MPI_CHAR, source, tag_, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
  return text;
}

std::vector<int> MpiMailbox::heard_from() {
  heartbeat();  // whoever polls a mailbox is waiting, and a waiting rank beats
  if (comm_ == heartbeat_comm()) note_lost_notices();
  std::vector<int> ranks;
  while (true) {
    int flag = 0;
    MPI_Status status{};
    mpi_check(MPI_Iprobe(MPI_ANY_SOURCE, kTagHeartbeat, comm_, &flag, &status), "MPI_Iprobe");
    if (!flag) return ranks;
    long long phase = 0;
    mpi_check(MPI_Recv(&phase, 1, MPI_LONG_LONG, status.MPI_SOURCE, kTagHeartbeat, comm_, MPI_STATUS_IGNORE),
              "MPI_Recv");
    note_heartbeat(status.MPI_SOURCE, phase);
    ranks.push_back(status.MPI_SOURCE);
  }
}

Gathered gather_at_root(Mailbox& mailbox, int size, std::string own_payload, const GatherLimits& limits,
                        const ClockFn& clock) {
  Gathered out;
  out.payloads.resize(static_cast<std::size_t>(size));
  if (size > 0) out.payloads[0] = std::move(own_payload);
  const Deadline overall = Deadline(limits.overall, clock).with_stop_grace(limits.stop_grace);
  const auto silence = std::chrono::duration_cast<Clock::duration>(limits.silence);
  std::vector<Clock::time_point> last_heard(static_cast<std::size_t>(std::max(size, 0)), clock());
  int outstanding = size - 1;
  while (outstanding > 0) {
    for (int r : mailbox.heard_from())
      if (r > 0 && r < size) last_heard[static_cast<std::size_t>(r)] = clock();
    bool someone_alive = false;
    const auto now = clock();
    for (int r = 1; r < size; ++r) {
      auto& slot = out.payloads[static_cast<std::size_t>(r)];
      if (slot) continue;
      if (auto text = mailbox.try_receive(r)) {
        slot = std::move(text);
        --outstanding;
      } else if (now - last_heard[static_cast<std::size_t>(r)] < silence &&
                 !(limits.known_lost && limits.known_lost(r))) {
        someone_alive = true;
      }
    }
    if (outstanding == 0 || !someone_alive || overall.expired()) break;
    std::this_thread::sleep_for(limits.poll_interval);
  }
  return out;
}

bool wait_with_deadline(MPI_Request& request, const Deadline& deadline, MPI_Status* status) {
  while (true) {
    heartbeat();
    int done = 0;
    mpi_check(MPI_Test(&request, &done, status), "MPI_Test");
    if (done) return true;
    if (deadline.expired()) {
      // Sends and collectives cannot be cancelled: left to MPI (cluster/kept_memory.h).
      note_abandoned_request();
      request = MPI_REQUEST_NULL;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

bool wait_for_peer(std::vector<MPI_Request>& requests, int peer, Seconds silence, std::chrono::microseconds nap) {
  Deadline deadline(silence);
  // A peer lost earlier gets one look, not a wait.
  const bool lost = known_lost(peer);
  for (unsigned spins = 0;; ++spins) {
    heartbeat();
    int done = 0;
    mpi_check(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE),
              "MPI_Testall");
    if (done) return true;
    if (nap.count() > 0) std::this_thread::sleep_for(nap);
    if ((spins & 4095u) == 0 && heard_from(peer)) deadline = Deadline(silence);
    // A peer past this step will not answer in it, however alive it is.
    if (lost || ((spins & 255u) == 0 && (deadline.expired() || moved_on(peer)))) {
      if (!lost && deadline.expired() && !moved_on(peer) && !stop_requested()) mark_lost(peer);
      // A pending receive is cancelled, so no later message of the peer lands in it; nothing
      // is freed: the transfer may still be live (cluster/kept_memory.h).
      for (auto& r : requests)
        if (r != MPI_REQUEST_NULL) {
          MPI_Cancel(&r);
          note_abandoned_request();
          r = MPI_REQUEST_NULL;
        }
      return false;
    }
  }
}

std::string why_given_up(int peer, Seconds silence) {
  if (moved_on(peer)) return ": it had already left this round";
  return ": silent for " + duration_text(silence) + " (lost: not waited for again)";
}

bool send_with_deadline(MPI_Comm comm, int dest, int tag, const std::string& payload, const Deadline& deadline) {
  // A copy the caller cannot free: a send given up on may still be read by MPI.
  TransferMemory<std::string> kept(payload);
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Isend(kept->data(), static_cast<int>(kept->size()), MPI_CHAR, dest, tag, comm, &request), "MPI_Isend");
  if (wait_with_deadline(request, deadline)) return true;
  kept.abandon();
  return false;
}

namespace {

std::vector<int> split_ranks(const std::string& text) {
  std::vector<int> ranks;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    ranks.push_back(std::stoi(text.substr(start, end - start)));
    start = end + 1;
  }
  return ranks;
}

// On the heartbeat communicator, rank 0's answer leads with the lost ranks: "1,4\n" + answer.
std::string with_lost(const std::string& answer) { return join(lost_peers(), ",") + "\n" + answer; }

std::optional<std::string> without_lost(const std::string& message) {
  const std::size_t end = message.find('\n');
  if (end == std::string::npos) return std::nullopt;
  try {
    for (int r : split_ranks(message.substr(0, end))) mark_lost_quietly(r);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return message.substr(end + 1);
}

}  // namespace

std::optional<std::string> consult(MPI_Comm comm, int tag, std::string payload, Seconds silence, const Decide& decide) {
  int rank = 0, size = 1;
  mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  MpiMailbox mailbox(comm, tag);
  const bool liveness = comm == heartbeat_comm();
  // Waiting here is bounded by silence, as the final gather is, so the cap is generous.
  const Deadline overall(overall_wait(silence));
  if (rank == 0) {
    // Everyone may be waiting for rank 0's answer: make rank 0 audible to all.
    std::vector<int> everyone;
    for (int r = 1; r < size; ++r) everyone.push_back(r);
    set_heartbeat_audience(everyone);
    GatherLimits limits;
    limits.silence = silence;
    limits.overall = overall.remaining();
    if (liveness) limits.known_lost = known_lost;
    const Gathered gathered = gather_at_root(mailbox, size, std::move(payload), limits);
    if (liveness && !stop_requested())
      for (int r : gathered.missing()) mark_lost(r);
    std::string answer = decide(gathered.payloads);
    set_heartbeat_audience({});
    const std::string message = liveness ? with_lost(answer) : answer;
    for (int r = 1; r < size; ++r)
      if (gathered.payloads[static_cast<std::size_t>(r)]) send_with_deadline(comm, r, tag, message, Deadline(silence));
    return answer;
  }
  if (!send_with_deadline(comm, 0, tag, payload, overall)) return std::nullopt;
  Deadline quiet(silence);
  while (!overall.expired() && !stop_requested()) {
    heartbeat();
    if (auto answer = mailbox.try_receive(0)) return liveness ? without_lost(*answer) : answer;
    if (heard_from(0)) quiet = Deadline(silence);
    if (quiet.expired()) break;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return std::nullopt;
}

std::optional<std::vector<int>> roll_call(MPI_Comm comm, Seconds silence) {
  const auto answer = consult(comm, kTagRollCall, "", silence, [](const std::vector<std::optional<std::string>>& got) {
    Gathered g{got};
    return join(g.missing(), ",");
  });
  if (!answer) return std::nullopt;
  return split_ranks(*answer);
}

}  // namespace ibgpu
