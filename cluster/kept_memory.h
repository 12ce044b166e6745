#pragma once
// A wait that gives up frees its MPI requests, but MPI may still move the data: a rendezvous
// transfer cannot be cancelled, a cancelled send may already be on the wire, and OpenMPI's
// shared-memory transport copies straight between the two processes' buffers. Memory that such
// a transfer may still touch is kept until the process ends instead of freed under MPI's feet
// (it ends soon: a lost peer ends the job). Every buffer handed to a non-blocking MPI call whose
// wait has a deadline lives in a TransferMemory.
#include <exception>
#include <memory>
#include <utility>

namespace ibgpu {

// A request given up on is neither cancelled (the standard forbids it for collectives, and
// OpenMPI's non-blocking collectives crashed in MPI_Finalize after it) nor freed: it is left
// to MPI and counted. A process with such a request never calls MPI_Finalize, which would
// progress it into memory long gone or wait for it forever (MpiSession::end aborts instead,
// after rank 0's report).
void note_abandoned_request();
std::size_t abandoned_requests();

// Never freed: held until the process exits, whatever MPI does with it meanwhile.
void keep_until_exit(std::shared_ptr<const void> memory);
std::size_t kept_until_exit_count();  // how many (for tests)

template <class T>
class TransferMemory {
 public:
  template <class... Args>
  explicit TransferMemory(Args&&... args)
      : value_(std::make_shared<T>(std::forward<Args>(args)...)), exceptions_(std::uncaught_exceptions()) {}
  TransferMemory(const TransferMemory&) = delete;
  TransferMemory& operator=(const TransferMemory&) = delete;
  // Unwinding (a wait threw, an MPI call failed) or abandoned: a request may still be live.
  ~TransferMemory() {
    if (abandoned_ || std::uncaught_exceptions() > exceptions_) keep_until_exit(std::move(value_));
  }

  // A wait on a transfer of this memory gave up without throwing.
  void abandon() { abandoned_ = true; }

  T& operator*() { return *value_; }
  T* operator->() { return value_.get(); }
  const T& operator*() const { return *value_; }
  const T* operator->() const { return value_.get(); }

 private:
  std::shared_ptr<T> value_;
  int exceptions_;
  bool abandoned_ = false;
};

}  // namespace ibgpu
