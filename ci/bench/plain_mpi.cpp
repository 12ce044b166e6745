// The references for ci/bench/mpi_vs_plain.sh: the plainest loops of the calls the MPI
// benchmarks time, without deadlines, heartbeats or per-sample stamps.
//   lat:       osu_latency: blocking MPI_Send/MPI_Recv ping-pong between ranks 0 and 1; prints
//              "size_B one_way_us" (round trip / 2, mean over ITERS).
//   bw:        osu_bw: rank 0 posts a window of MPI_Isend, MPI_Waitall, then a 4-byte ack from
//              rank 1, which receives the whole window into one buffer; prints "size_B GBps"
//              (size x window x ITERS / time).
//   allreduce: MPI_Allreduce (float sum, out-of-place), timed as ibgpu times its MPI backend:
//              warm-up, then ITERS calls, per-rank wall clock per call averaged over ranks;
//              prints "size_B avg_us".
// ITERS 0 (bw only): the count ibgpu fits by default (probes/net/pair_probe.cpp,
// fitted_bw_iters), so both loops move the same bytes.
//   mpicxx -O2 -std=c++17 -o plain_mpi plain_mpi.cpp
// --threads single|funneled|serialized|multiple: the thread level to ask MPI_Init_thread for
// (default: MPI_Init). OpenMPI 4.1 takes its locks at every level above single, which costs a
// small collective 10-15%: this shows what the thread level alone costs.
//   mpirun -np 2 ./plain_mpi lat|bw|allreduce ITERS WARMUP SIZE... [--window N] [--threads LEVEL]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int fitted_bw_iters(long size, int window) {
  const double per_iteration = static_cast<double>(size) * window;
  const double by_bytes = 256.0 * 1024 * 1024 / per_iteration, most = std::max(10.0, 5000.0 / window);
  return static_cast<int>(std::clamp(by_bytes, 10.0, most));
}

void latency(long bytes, int iters, int warmup, int rank) {
  std::vector<char> buffer(static_cast<std::size_t>(bytes), 1);
  const int n = static_cast<int>(bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = 0;
  for (int i = 0; i < warmup + iters; ++i) {
    if (i == warmup) t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buffer.data(), n, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(buffer.data(), n, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buffer.data(), n, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer.data(), n, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) std::printf("%ld %.4f\n", bytes, (MPI_Wtime() - t0) * 1e6 / (2.0 * iters));
}

void bandwidth(long bytes, int iters, int warmup, int window, int rank) {
  if (iters == 0) {
    iters = fitted_bw_iters(bytes, window);
    warmup = std::max(1, iters / 10) + 1;  // ibgpu's warm-up, and its first pacing iteration
  }
  std::vector<char> buffer(static_cast<std::size_t>(bytes), 1);
  std::vector<MPI_Request> requests(static_cast<std::size_t>(window));
  const int n = static_cast<int>(bytes);
  int ack = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = 0;
  for (int i = 0; i < warmup + iters; ++i) {
    if (i == warmup) t0 = MPI_Wtime();
    if (rank == 0) {
      for (auto& r : requests) MPI_Isend(buffer.data(), n, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &r);
      MPI_Waitall(window, requests.data(), MPI_STATUSES_IGNORE);
      MPI_Recv(&ack, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      for (auto& r : requests) MPI_Irecv(buffer.data(), n, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &r);
      MPI_Waitall(window, requests.data(), MPI_STATUSES_IGNORE);
      MPI_Send(&ack, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
  }
  const double seconds = MPI_Wtime() - t0;
  if (rank == 0)
    std::printf("%ld %.4f %d\n", bytes, static_cast<double>(bytes) * window * iters / seconds / 1e9, iters);
}

void allreduce(long bytes, int iters, int warmup, int rank, int size) {
  const int count = static_cast<int>(bytes / static_cast<long>(sizeof(float)));
  std::vector<float> in(static_cast<std::size_t>(count), 1.0f), out(static_cast<std::size_t>(count));
  for (int i = 0; i < warmup; ++i) MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) MPI_Allreduce(in.data(), out.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  const double per_call = (MPI_Wtime() - t0) / iters;
  double sum = 0;
  MPI_Reduce(&per_call, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%ld %.3f\n", bytes, sum / size * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  int window = 64;
  std::string threads;
  while (args.size() >= 2 && (args[args.size() - 2] == "--window" || args[args.size() - 2] == "--threads")) {
    if (args[args.size() - 2] == "--window")
      window = std::atoi(args.back().c_str());
    else
      threads = args.back();
    args.resize(args.size() - 2);
  }
  if (threads.empty()) {
    MPI_Init(&argc, &argv);
  } else {
    const int level = threads == "multiple"     ? MPI_THREAD_MULTIPLE
                      : threads == "serialized" ? MPI_THREAD_SERIALIZED
                      : threads == "funneled"   ? MPI_THREAD_FUNNELED
                                                : MPI_THREAD_SINGLE;
    int provided = 0;
    MPI_Init_thread(&argc, &argv, level, &provided);
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string kind = args.empty() ? "" : args[0];
  if (args.size() < 4 || (kind != "lat" && kind != "bw" && kind != "allreduce") || (kind != "allreduce" && size < 2)) {
    if (rank == 0)
      std::fprintf(stderr, "usage: plain_mpi lat|bw|allreduce ITERS WARMUP SIZE... [--window N] [--threads LEVEL]\n");
    MPI_Finalize();
    return 64;
  }
  const int iters = std::atoi(args[1].c_str()), warmup = std::atoi(args[2].c_str());
  for (std::size_t a = 3; a < args.size(); ++a) {
    const long bytes = std::atol(args[a].c_str());
    if (kind == "lat") latency(bytes, iters, warmup, rank);
    if (kind == "bw") bandwidth(bytes, iters, warmup, window, rank);
    if (kind == "allreduce") allreduce(bytes, iters, warmup, rank, size);
  }
  MPI_Finalize();
  return 0;
}
