// The probe catalogue: one entry per id, found by exact id; ids of another
// build get their family's traits and no judged number.
#include "core/probe_kind.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/result.h"

namespace ibgpu {
namespace {

TEST(ProbeCatalogue, EveryIdIsListedOnceAndFoundByItself) {
  std::set<std::string_view> ids;
  for (const ProbeKind& kind : probe_catalogue()) {
    EXPECT_TRUE(ids.insert(kind.id).second) << kind.id;
    EXPECT_EQ(&probe_kind(kind.id), &kind) << kind.id;
    EXPECT_FALSE(kind.description.empty()) << kind.id;
    if (kind.quantity != Quantity::none) {
      EXPECT_FALSE(kind.metrics.empty()) << kind.id;
    }
  }
  for (const char* id :
       {kInventoryGpuProbe, kInventoryRdmaProbe, kGpuHealthProbe,    kGpuCopyBwProbe,    kGpuMemBwProbe,
        kGpuComputeProbe,   kPortCountersProbe,  kKernelLogProbe,    kKernelLogXidProbe, kKernelLogLinkProbe,
        kMpiBwProbe,        kMpiLatProbe,        kWriteBwId,         kWriteLatId,        kSendLatId,
        kNetPairsProbe,     kNcclAllReduceProbe, kMpiAllReduceProbe, kGatherProbe,       kRankProbe})
    EXPECT_EQ(probe_kind(id).id, id) << id;
}

TEST(ProbeCatalogue, TraitsTheJudgeReads) {
  EXPECT_TRUE(probe_kind(kWriteBwId).pair());
  EXPECT_EQ(probe_kind(kWriteBwId).quantity, Quantity::bandwidth);
  EXPECT_EQ(probe_kind(kWriteBwId).transport, Transport::verbs);
  EXPECT_EQ(probe_kind(kMpiLatProbe).quantity, Quantity::latency);
  EXPECT_EQ(probe_kind(kMpiLatProbe).transport, Transport::mpi);
  EXPECT_FALSE(probe_kind(kNetPairsProbe).pair());  // the step as a whole, not a link
  EXPECT_TRUE(probe_kind(kNcclAllReduceProbe).all_reduce());
  EXPECT_EQ(probe_kind(kGpuHealthProbe).stage, ProbeStage::local);
  EXPECT_EQ(probe_kind(kGpuHealthProbe).subject, ProbeSubject::gpu);
  EXPECT_EQ(probe_kind(kPortCountersProbe).subject, ProbeSubject::hca_port);
  // Kernel-log results name a PCI address or an RDMA device: they speak for the node.
  EXPECT_EQ(probe_kind(kKernelLogXidProbe).subject, ProbeSubject::node);
  EXPECT_EQ(probe_kind(kInventoryGpuProbe).stage, ProbeStage::inventory);
}

TEST(ProbeCatalogue, IdsOfAnotherBuildGetTheirFamilyAndNoJudgedNumber) {
  EXPECT_EQ(probe_kind("gpu.memory_bw").subject, ProbeSubject::gpu);
  EXPECT_EQ(probe_kind("gpu.memory_bw").stage, ProbeStage::local);
  EXPECT_EQ(probe_kind("ib.port.errors").subject, ProbeSubject::hca_port);
  EXPECT_TRUE(probe_kind("net.ucx.bw").pair());
  EXPECT_TRUE(probe_kind("collective.rccl.all_reduce").all_reduce());
  for (const char* id : {"gpu.memory_bw", "net.ucx.bw", "collective.rccl.all_reduce", "weird", ""})
    EXPECT_EQ(probe_kind(id).quantity, Quantity::none) << id;
  EXPECT_EQ(probe_kind("weird").stage, ProbeStage::run);
  // Only an exact id matches: a prefix of a known id is not that kind.
  EXPECT_NE(probe_kind("net.verbs.write_bw2").transport, Transport::verbs);
}

TEST(ProbeCatalogue, AResultCarriesTheKindOfItsId) {
  ProbeResult r;
  r.id = kMpiBwProbe;
  r.scope.hosts = {"a", "b"};
  EXPECT_EQ(&r.kind(), &probe_kind(kMpiBwProbe));
  EXPECT_TRUE(is_pair_probe(r));
  r.scope.hosts = {"a"};  // a pair probe's result that names one host is not between two
  EXPECT_FALSE(is_pair_probe(r));
}

}  // namespace
}  // namespace ibgpu
