#include "core/errors.h"

#include <mpi.h>

namespace ibgpu {

namespace {
std::string g_host = "localhost";
int g_rank = 0;
}  // namespace

void set_error_origin(std::string host, int rank) {
  g_host = std::move(host);
  g_rank = rank;
}

std::string error_origin() { return "host " + g_host + " rank " + std::to_string(g_rank); }

CallError::CallError(std::string call, std::string detail)
    : std::runtime_error(call + ": " + detail + " (" + error_origin() + ")"),
      call_(std::move(call)),
      detail_(std::move(detail)) {}

void mpi_check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw CallError(call, std::string(text, static_cast<std::size_t>(len)));
}

}  // namespace ibgpu
