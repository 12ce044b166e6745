#pragma once
// Typed errors. A failed C call carries the call, the library's own error
// text, and where it happened (host, rank); the probe runner turns it into a
// result with status `error`. A UsageError ends the command with exit 64.
#include <stdexcept>
#include <string>

namespace ibgpu {

// Set once the MPI world is known, so every CallError names its origin.
void set_error_origin(std::string host, int rank);
std::string error_origin();  // "host node1 rank 3"

class CallError : public std::runtime_error {
 public:
  CallError(std::string call, std::string detail);
  const std::string& call() const { return call_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string call_, detail_;
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// MPI's convention: a return code, named by MPI_Error_string.
void mpi_check(int rc, const char* call);

}  // namespace ibgpu
