#include "cluster/group_channel.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "cluster/gather.h"
#include "cluster/kept_memory.h"
#include "core/errors.h"

namespace ibgpu {

namespace {

double combined(double a, double b, Combine how) { return how == Combine::sum ? a + b : std::max(a, b); }

}  // namespace

std::optional<double> CommChannel::combine(double mine, Combine how, Seconds timeout) {
  if (comm_ == MPI_COMM_NULL) return mine;
  TransferMemory<std::array<double, 2>> values(std::array<double, 2>{mine, 0});  // mine, combined
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Iallreduce(&(*values)[0], &(*values)[1], 1, MPI_DOUBLE, how == Combine::sum ? MPI_SUM : MPI_MAX, comm_,
                           &request),
            "MPI_Iallreduce");
  if (!wait_with_deadline(request, Deadline(timeout))) {
    values.abandon();
    return std::nullopt;
  }
  return (*values)[1];
}

std::optional<std::vector<double>> CommChannel::gather(const std::vector<double>& mine, Seconds timeout) {
  if (comm_ == MPI_COMM_NULL) return mine;
  int rank = 0, size = 1;
  mpi_check(MPI_Comm_rank(comm_, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm_, &size), "MPI_Comm_size");
  TransferMemory<std::vector<double>> sent(mine);
  TransferMemory<std::vector<double>> gathered(rank == 0 ? mine.size() * static_cast<std::size_t>(size) : 0);
  const int n = static_cast<int>(mine.size());
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Igather(sent->data(), n, MPI_DOUBLE, gathered->data(), n, MPI_DOUBLE, 0, comm_, &request),
            "MPI_Igather");
  if (!wait_with_deadline(request, Deadline(timeout))) {
    sent.abandon();
    gathered.abandon();
    return std::nullopt;
  }
  return *gathered;
}

bool CommChannel::broadcast(void* data, std::size_t size, Seconds timeout) {
  if (comm_ == MPI_COMM_NULL) return true;
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Ibcast(data, static_cast<int>(size), MPI_BYTE, 0, comm_, &request), "MPI_Ibcast");
  return wait_with_deadline(request, Deadline(timeout));
}

MemberChannel::MemberChannel(MPI_Comm parent, std::vector<int> members, int tag)
    : parent_(parent), members_(std::move(members)), tag_(tag) {
  int rank = 0;
  mpi_check(MPI_Comm_rank(parent_, &rank), "MPI_Comm_rank");
  const auto it = std::find(members_.begin(), members_.end(), rank);
  if (it == members_.end() || !std::is_sorted(members_.begin(), members_.end()))
    throw std::logic_error("MemberChannel: this rank is not among the ascending members");
  me_ = static_cast<std::size_t>(it - members_.begin());
}

bool MemberChannel::send(int peer, const double* values, int count, Seconds timeout) {
  TransferMemory<std::vector<double>> kept(values, values + count);
  std::vector<MPI_Request> requests(1, MPI_REQUEST_NULL);
  mpi_check(MPI_Isend(kept->data(), count, MPI_DOUBLE, peer, tag_, parent_, &requests[0]), "MPI_Isend");
  if (wait_for_peer(requests, peer, timeout)) return true;
  kept.abandon();
  broken_ = true;
  missing_ = peer;
  return false;
}

bool MemberChannel::receive(int peer, double* values, int count, Seconds timeout) {
  TransferMemory<std::vector<double>> kept(static_cast<std::size_t>(count));
  std::vector<MPI_Request> requests(1, MPI_REQUEST_NULL);
  mpi_check(MPI_Irecv(kept->data(), count, MPI_DOUBLE, peer, tag_, parent_, &requests[0]), "MPI_Irecv");
  if (!wait_for_peer(requests, peer, timeout)) {
    kept.abandon();
    broken_ = true;
    missing_ = peer;
    return false;
  }
  std::copy(kept->begin(), kept->end(), values);
  return true;
}

std::optional<double> MemberChannel::combine(double mine, Combine how, Seconds timeout) {
  if (broken_) return std::nullopt;
  const int root = members_.front();
  if (!is_root()) {
    std::array<double, 3> answer{};  // whether every member came, the value, the one that did not
    if (!send(root, &mine, 1, timeout) || !receive(root, answer.data(), 3, timeout)) return std::nullopt;
    if (answer[0] == 0) {
      broken_ = true;
      if (answer[2] >= 0) missing_ = static_cast<int>(answer[2]);
      return std::nullopt;
    }
    return answer[1];
  }
  // The root hears every member, then answers each: a member that did not come makes the answer
  // "not every member", so the others end now rather than at their own timeout.
  double total = mine;
  bool all = true;
  for (std::size_t i = 1; i < members_.size() && all; ++i) {
    double theirs = 0;
    all = receive(members_[i], &theirs, 1, timeout);
    if (all) total = combined(total, theirs, how);
  }
  const std::array<double, 3> answer{all ? 1.0 : 0.0, total, missing_ ? static_cast<double>(*missing_) : -1.0};
  for (std::size_t i = 1; i < members_.size(); ++i)
    if (!missing_ || members_[i] != *missing_) send(members_[i], answer.data(), 3, timeout);
  if (!all || broken_) {
    broken_ = true;
    return std::nullopt;
  }
  return total;
}

std::optional<std::vector<double>> MemberChannel::gather(const std::vector<double>& mine, Seconds timeout) {
  if (broken_) return std::nullopt;
  const int n = static_cast<int>(mine.size());
  if (!is_root()) {
    if (!send(members_.front(), mine.data(), n, timeout)) return std::nullopt;
    return std::vector<double>{};
  }
  std::vector<double> all(mine);
  all.resize(mine.size() * members_.size());
  for (std::size_t i = 1; i < members_.size(); ++i)
    if (!receive(members_[i], all.data() + i * mine.size(), n, timeout)) return std::nullopt;
  return all;
}

bool MemberChannel::broadcast(void* data, std::size_t size, Seconds timeout) {
  if (broken_) return false;
  // Whole doubles on the wire: the NCCL id's 128 bytes are 16 of them.
  const std::size_t words = (size + sizeof(double) - 1) / sizeof(double);
  std::vector<double> buffer(words, 0.0);
  if (is_root()) {
    std::copy_n(static_cast<const std::byte*>(data), size, reinterpret_cast<std::byte*>(buffer.data()));
    bool all = true;
    for (std::size_t i = 1; i < members_.size(); ++i)
      all = send(members_[i], buffer.data(), static_cast<int>(words), timeout) && all;
    return all;
  }
  if (!receive(members_.front(), buffer.data(), static_cast<int>(words), timeout)) return false;
  std::copy_n(reinterpret_cast<const std::byte*>(buffer.data()), size, static_cast<std::byte*>(data));
  return true;
}

}  // namespace ibgpu
