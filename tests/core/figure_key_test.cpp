// A judged number's key: its text joins the parts, and the parts read back as they were given.
#include "core/figure_key.h"

#include <gtest/gtest.h>

namespace ibgpu {
namespace {

TEST(FigureKey, TheTextJoinsProbeSizeShapeAndMetric) {
  const FigureKey bw("net.verbs.write_bw", 8388608, "", "bw_avg_GBps");
  EXPECT_EQ(bw.text(), "net.verbs.write_bw@8388608:bw_avg_GBps");
  EXPECT_EQ(bw.probe(), "net.verbs.write_bw");
  EXPECT_EQ(bw.size(), 8388608u);
  EXPECT_EQ(bw.metric(), "bw_avg_GBps");

  const FigureKey ar("allreduce.nccl", 1073741824, "/out_of_place/2hosts/16ranks", "busbw_GBps");
  EXPECT_EQ(ar.text(), "allreduce.nccl@1073741824/out_of_place/2hosts/16ranks:busbw_GBps");
  EXPECT_EQ(ar.probe(), "allreduce.nccl");
  EXPECT_EQ(ar.metric(), "busbw_GBps");

  const FigureKey sizeless("gpu.cuda.mem_bw", std::nullopt, "", "bw_GBps");
  EXPECT_EQ(sizeless.text(), "gpu.cuda.mem_bw:bw_GBps");
  EXPECT_FALSE(sizeless.size());
  EXPECT_EQ(sizeless.probe(), "gpu.cuda.mem_bw");
  EXPECT_NE(bw, ar);
}

}  // namespace
}  // namespace ibgpu
