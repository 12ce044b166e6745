// The backends' answers that need no MPI job and no GPU. Running them (MPI
// all-reduce across ranks, NCCL on GPUs) is the MPI lane's business.
#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "cluster/group_channel.h"
#include "core/errors.h"
#include "probes/collective/mpi_allreduce.h"
#include "probes/collective/nccl_allreduce.h"
#include "probes/collective/nccl_library.h"
#include "probes/collective/ring_allreduce.h"

namespace ibgpu {
namespace {

bool contains(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

TEST(MpiAllReduce, NeedsAnMpiJob) {
  MpiAllReduce backend(MPI_COMM_NULL, Seconds(1));
  EXPECT_EQ(backend.name(), "mpi");
  EXPECT_EQ(backend.unavailable_reason(), "MPI is not initialised (ibgpu was not started by mpirun or srun)");
  EXPECT_EQ(backend.device(), "");
}

TEST(MpiAllReduce, SumsFloatDoubleAndInt32Only) {
  MpiAllReduce backend(MPI_COMM_NULL, Seconds(1));
  EXPECT_EQ(backend.unsupported(DType::f32, 1000), "");
  EXPECT_EQ(backend.unsupported(DType::f64, 1000), "");
  EXPECT_EQ(backend.unsupported(DType::i32, 1000), "");
  EXPECT_TRUE(contains(backend.unsupported(DType::f16, 1000), "MPI has no half sum"))
      << backend.unsupported(DType::f16, 1);
  EXPECT_TRUE(contains(backend.unsupported(DType::bf16, 1000), "nccl backend"));
  EXPECT_EQ(backend.unsupported(DType::f32, INT_MAX), "");
  EXPECT_TRUE(contains(backend.unsupported(DType::f32, std::size_t{INT_MAX} + 1), "MPI counts are int"));
  EXPECT_THROW(backend.prepare(1024, DType::bf16), UsageError);
}

TEST(RingAllReduce, SumsWhatMpiSumsAndSaysSo) {
  RingAllReduce ring(MPI_COMM_NULL, {0, 1}, 202, Seconds(1));
  EXPECT_EQ(ring.name(), "mpi");  // the MPI backend's probe, over another schedule
  EXPECT_EQ(ring.timed_call(), "ring of MPI_Isend/MPI_Irecv");
  EXPECT_EQ(ring.unavailable_reason(), "MPI is not initialised (ibgpu was not started by mpirun or srun)");
  EXPECT_EQ(ring.unsupported(DType::f64, 1000), "");
  EXPECT_TRUE(contains(ring.unsupported(DType::f16, 1000), "MPI has no half sum"));
  EXPECT_THROW(ring.prepare(1024, DType::bf16), UsageError);
  EXPECT_EQ(ring.peer_given_up_on(), std::nullopt);
}

TEST(CommChannel, AGroupOfOneAnswersAtOnce) {
  CommChannel alone(MPI_COMM_NULL);
  EXPECT_EQ(alone.combine(2.5, Combine::max, Seconds(1)), 2.5);
  EXPECT_EQ(alone.gather({1, 2}, Seconds(1)), (std::vector<double>{1, 2}));
  char byte = 'x';
  EXPECT_TRUE(alone.broadcast(&byte, 1, Seconds(1)));
  EXPECT_EQ(alone.missing(), std::nullopt);
}

TEST(NcclAllReduce, SaysWhyNotWithoutAGpu) {
  NcclAllReduce backend(nullptr, 0, 1, 0, Seconds(5));
  EXPECT_EQ(backend.name(), "nccl");
  const std::string why = backend.unavailable_reason();
  if (why.empty()) GTEST_SKIP() << "a CUDA device is present here: the NCCL path is exercised by the MPI lane";
  EXPECT_TRUE(contains(why, "libcudart.so not found") || contains(why, "libnccl.so.2 not found") ||
              contains(why, "no CUDA device (cudaGetDeviceCount: "))
      << why;
  EXPECT_EQ(backend.unavailable_reason(), why);  // asked once, answered the same
  EXPECT_EQ(backend.device(), "");
  EXPECT_THROW(backend.prepare(1024, DType::f32), std::logic_error);
}

TEST(NcclAllReduce, SeveralRanksNeedACommunicator) {
  NcclAllReduce backend(nullptr, 0, 2, 0, Seconds(5));
  EXPECT_FALSE(backend.unavailable_reason().empty());
}

TEST(NcclLibrary, Names) {
  EXPECT_EQ(nccl_version_text(22803), "2.28.3");
  EXPECT_EQ(nccl_version_text(21003), "2.10.3");
  EXPECT_EQ(nccl_version_text(2708), "2.7.8");
  EXPECT_EQ(nccl_data_type(DType::i32), 2);
  EXPECT_EQ(nccl_data_type(DType::f16), 6);
  EXPECT_EQ(nccl_data_type(DType::f32), 7);
  EXPECT_EQ(nccl_data_type(DType::f64), 8);
  EXPECT_EQ(nccl_data_type(DType::bf16), 9);
}

TEST(CollectiveTimeout, NamesWhatWasWaitedFor) {
  const std::string what = describe_allreduce("ncclAllReduce", true, 262144, DType::bf16);
  EXPECT_EQ(what, "ncclAllReduce of 262144 x bfloat16, in-place");
  const CollectiveTimeout e(what, Seconds(2.5));
  EXPECT_EQ(e.waited_for(), what);
  EXPECT_TRUE(contains(e.what(), "no completion of ncclAllReduce of 262144 x bfloat16, in-place within 2.5 s"))
      << e.what();
  EXPECT_TRUE(contains(e.what(), "rank ")) << e.what();
}

}  // namespace
}  // namespace ibgpu
