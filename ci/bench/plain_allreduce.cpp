// The reference for ci/bench/allreduce_vs_mpi.sh: the plainest MPI_Allreduce
// timing loop (float sum, out-of-place, blocking calls), timed as ibgpu times
// its MPI backend: warm-up, then `iters` calls, per-rank wall clock per call,
// averaged over ranks. Prints "size_B avg_us" per size on rank 0.
//   mpicxx -O2 -std=c++17 -o plain_allreduce plain_allreduce.cpp
//   mpirun -np 4 ./plain_allreduce ITERS WARMUP SIZE...
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) {
    if (rank == 0) std::fprintf(stderr, "usage: plain_allreduce ITERS WARMUP SIZE...\n");
    MPI_Finalize();
    return 64;
  }
  const int iters = std::atoi(argv[1]), warmup = std::atoi(argv[2]);
  for (int a = 3; a < argc; ++a) {
    const long bytes = std::atol(argv[a]);
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
  MPI_Finalize();
  return 0;
}
