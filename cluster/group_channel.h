#pragma once
// The small agreements a collective probe needs among the ranks of its group (every rank's flag
// counted, the slowest pace, the times gathered, the NCCL id handed out), each bounded by a wait:
//
// - CommChannel: over the group's own communicator, with MPI's non-blocking collectives.
// - MemberChannel: over point-to-point messages among some ranks of the job's communicator, for
//   the ranks that came when another was lost. A communicator of theirs would take a blocking
//   collective to make (MPI_Comm_create_group, with no timeout): one of them that did not hear the
//   roll call's answer never enters it and the others wait in it for ever. Here each wait is for
//   one peer (cluster/gather.h wait_for_peer): it ends when that peer has been silent for the
//   timeout or has already left this step, and the channel then answers nullopt, never hangs.
#include <mpi.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "core/deadline.h"

namespace ibgpu {

enum class Combine { sum, max };

class GroupChannel {
 public:
  virtual ~GroupChannel() = default;
  // Every member's `mine` combined; nullopt when not every member answered in time.
  virtual std::optional<double> combine(double mine, Combine how, Seconds timeout) = 0;
  // Every member's `mine` (the same length on each) at the first member, in member order; an
  // empty vector on the others; nullopt when not every member's came in time.
  virtual std::optional<std::vector<double>> gather(const std::vector<double>& mine, Seconds timeout) = 0;
  // `size` bytes at `data` from the first member to the others; false when they did not arrive
  // in time. `data` must be TransferMemory the caller abandons on false (cluster/kept_memory.h).
  virtual bool broadcast(void* data, std::size_t size, Seconds timeout) = 0;
  // After an answer of nullopt or false: the job rank that did not come, where this rank knows it.
  virtual std::optional<int> missing() const { return std::nullopt; }
};

// The group's communicator (MPI_COMM_NULL: a group of one, which answers at once).
class CommChannel final : public GroupChannel {
 public:
  explicit CommChannel(MPI_Comm comm) : comm_(comm) {}
  std::optional<double> combine(double mine, Combine how, Seconds timeout) override;
  std::optional<std::vector<double>> gather(const std::vector<double>& mine, Seconds timeout) override;
  bool broadcast(void* data, std::size_t size, Seconds timeout) override;

 private:
  MPI_Comm comm_;
};

// `members`: ascending ranks of `parent` (the job's, heartbeat, communicator), this rank among
// them; the first is the group's root. `tag`: the channel's alone on `parent` (cluster/tags.h).
// Once a wait has given up the channel is broken: every later call answers at once, sends
// nothing, so no late message is taken for a later one's.
class MemberChannel final : public GroupChannel {
 public:
  MemberChannel(MPI_Comm parent, std::vector<int> members, int tag);
  std::optional<double> combine(double mine, Combine how, Seconds timeout) override;
  std::optional<std::vector<double>> gather(const std::vector<double>& mine, Seconds timeout) override;
  bool broadcast(void* data, std::size_t size, Seconds timeout) override;

  std::optional<int> missing() const override { return missing_; }
  const std::vector<int>& members() const { return members_; }
  bool broken() const { return broken_; }

 private:
  bool is_root() const { return me_ == 0; }
  // Sends `count` doubles to `peer` and waits for them to go; false when it gave up.
  bool send(int peer, const double* values, int count, Seconds timeout);
  bool receive(int peer, double* values, int count, Seconds timeout);

  MPI_Comm parent_;
  std::vector<int> members_;
  std::size_t me_ = 0;  // this rank's index in members_
  int tag_;
  bool broken_ = false;
  std::optional<int> missing_;
};

}  // namespace ibgpu
