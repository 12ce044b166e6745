#pragma once
// The line: a TCP path from every rank to rank 0 beside MPI, for a process that has lost MPI.
//
// The all-reduce's timed loop is a blocking MPI_Allreduce at MPI_THREAD_SINGLE, the loop MPI
// benchmarks time (probes/collective/mpi_allreduce.h). When a rank stops inside it, the other
// ranks' calls never return: each process gives up on that thread at the deadline and, at that
// thread level, may never call MPI again while it is inside. Such a process has lost MPI
// (mark_mpi_lost, cluster/world.h): it skips what is left of the MPI work and sends its results
// to rank 0 over the line. Rank 0 gathers from the line (and from MPI while it still has MPI),
// names the ranks that sent nothing, writes the report, releases the ranks it heard on the line
// with the exit code, and ends the job with MPI_Abort.
//
// Rank 0 listens on every IPv4 address of its host, on a port the kernel picks; that address and
// a random token reach every rank over MPI before the first all-reduce that needs it (open_line). A connection whose
// first bytes do not carry the token, name a rank of the job or a length under kLineMaxPayload
// is closed unread: the listener never reads unbounded input or a stranger's results.
#include <mpi.h>

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/gather.h"
#include "core/deadline.h"
#include "core/fd.h"

namespace ibgpu {

inline constexpr std::size_t kLineMaxPayload = std::size_t{256} << 20;

// What rank 0 tells every rank: where it listens, and the job's token.
struct LineAddress {
  std::vector<std::string> hosts;  // IPv4, the host's own addresses first, loopback last
  int port = 0;
  std::string token;  // 32 hex digits

  std::string to_text() const;  // "ibgpu-line TOKEN PORT HOST..."
  static std::optional<LineAddress> from_text(const std::string& text);
};

// Rank 0's end: a listening socket, and what the ranks sent on it. A Mailbox, so the gather
// reads it as it reads MPI (cluster/gather.h).
class LineListener final : public Mailbox {
 public:
  // Throws CallError when no socket can listen.
  LineListener(int world_size, std::string token);

  LineAddress address() const { return address_; }
  std::optional<std::string> try_receive(int source) override;
  std::vector<int> heard_from() override;  // ranks whose connection carried bytes since the last call
  // Ranks whose whole results came over the line.
  std::vector<int> arrivals() const;
  // Sends `exit_code` to every rank whose results came, and closes every connection.
  void release(int exit_code);

 private:
  struct Connection {
    Fd fd;
    std::string in;
    int rank = -1;  // known once the header is read
    bool complete = false;
  };
  void accept_new();
  // Reads what is there; false when the connection is to be dropped.
  bool read_from(Connection& c, std::vector<int>& heard);

  int world_size_;
  Fd listener_;
  LineAddress address_;
  std::vector<Connection> connections_;
  std::map<int, std::string> arrived_;  // whole results not yet taken
  std::vector<int> received_;           // ranks whose results were taken
  std::set<int> taken_;                 // ranks already on a connection
};

// A rank's end: connects to rank 0 (each of its addresses in turn), sends `payload` as `rank`, and
// returns the connection, left open for the release; nullopt when no address took it or the send
// did not finish by the deadline.
std::optional<Fd> send_over_line(const LineAddress& to, int rank, const std::string& payload, const Deadline& deadline);
// The exit code rank 0 released this rank with; nullopt when the line closed or the deadline came.
std::optional<int> wait_for_release(const Fd& line, const Deadline& deadline);

// Rank 0: whether the job ends over the line, because rank 0 lost MPI or ranks that lost it sent
// their results there (they can never finalise).
bool ends_over_line();

// The job's line, opened once, by every rank of `comm` together (the first all-reduce that needs it),
// with a deadline. Rank 0 listens; where it cannot, or not every rank took the address in time,
// the line stays closed and nothing that needs it runs (the all-reduce polls instead of blocking).
void open_line(MPI_Comm comm, int rank, int size, Seconds timeout);
bool line_open();
LineListener* line_listener();  // rank 0's, else nullptr
// A rank that lost MPI: its results to rank 0, and then the exit code rank 0 releases it with
// (nullopt: not sent, or no release by the deadline).
bool send_results_over_line(int rank, const std::string& payload, const Deadline& deadline);
std::optional<int> wait_for_release_over_line(const Deadline& deadline);

}  // namespace ibgpu
