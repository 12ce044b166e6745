// The Kubernetes map: every label value legal whatever the input, and the
// labels, annotations and taints of a degraded, a drained and a healthy node.
#include "scheduler/kubernetes.h"

#include <gtest/gtest.h>

#include <regex>

#include "health/admission.h"

namespace ibgpu {
namespace {

// Kubernetes' own rule for label values (and taint values).
bool legal_label_value(const std::string& v) {
  static const std::regex rule("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
  return v.size() <= 63 && std::regex_match(v, rule);
}

Verdict node_verdict(const std::string& name, HealthState state, Action action, std::vector<std::string> usable,
                     std::vector<std::string> excluded, std::vector<Reason> reasons = {}) {
  Verdict v{Entity::node(name), state, std::move(reasons), action};
  v.usable = std::move(usable);
  v.excluded = std::move(excluded);
  return v;
}

TEST(KubernetesLabelValue, KeepsLegalTextAndRewritesTheRest) {
  EXPECT_EQ(kubernetes_label_value("healthy"), "healthy");
  EXPECT_EQ(kubernetes_label_value("admit_degraded"), "admit_degraded");
  EXPECT_EQ(kubernetes_label_value("0.1.2"), "0.1.2");
  EXPECT_EQ(kubernetes_label_value("mlx5_0:1"), "mlx5_0-1");
  EXPECT_EQ(kubernetes_label_value("a b/c"), "a-b-c");
  EXPECT_EQ(kubernetes_label_value(""), "");
}

TEST(KubernetesLabelValue, BeginsAndEndsAlphanumeric) {
  EXPECT_EQ(kubernetes_label_value("-x-"), "x");
  EXPECT_EQ(kubernetes_label_value("__x.y__"), "x.y");
  EXPECT_EQ(kubernetes_label_value(":::"), "");
  EXPECT_EQ(kubernetes_label_value("\xc3\xa9t\xc3\xa9"), "t");  // non-ASCII bytes are not label characters
}

TEST(KubernetesLabelValue, CutsAt63AndStillEndsAlphanumeric) {
  const std::string long_text = std::string(62, 'a') + "-bcd";
  const std::string v = kubernetes_label_value(long_text);
  EXPECT_EQ(v, std::string(62, 'a'));  // the cut falls after '-', which is then trimmed
  EXPECT_EQ(kubernetes_label_value(std::string(200, 'z')).size(), 63u);
}

TEST(KubernetesLabelValue, AnyInputGivesALegalValue) {
  const std::string alphabet = "aZ09._-:/ ;$`'\"{}\x01\xff";
  std::uint32_t seed = 12345;
  for (int n = 0; n < 2000; ++n) {
    std::string text;
    seed = seed * 1664525u + 1013904223u;
    const std::size_t length = seed % 90;
    for (std::size_t i = 0; i < length; ++i) {
      seed = seed * 1664525u + 1013904223u;
      text += alphabet[(seed >> 16) % alphabet.size()];
    }
    const std::string v = kubernetes_label_value(text);
    EXPECT_TRUE(legal_label_value(v)) << "'" << text << "' -> '" << v << "'";
  }
}

TEST(KubernetesMap, DegradedNodeListsWhatItMayUseAndPrefersNoSchedule) {
  const std::vector<Verdict> verdicts{
      Verdict{Entity::gpu("node1", "gpu1"), HealthState::failed, {}, std::nullopt},
      node_verdict("node1", HealthState::degraded, Action::admit_degraded, {"gpu0", "gpu2", "gpu3", "mlx5_0:1"},
                   {"gpu1", "mlx5_1:1"},
                   {Reason{ReasonCode::IB_PORTS_MISSING, "1 of 2 RDMA ports active", "", 1.0, 2.0}})};
  const auto map = kubernetes_map(verdicts);
  ASSERT_EQ(map.size(), 1u);  // nodes only
  const KubernetesNode& k = map.at("node1");
  const std::map<std::string, std::string> labels{
      {"ibgpu.io/state", "degraded"},        {"ibgpu.io/admission", "admit_degraded"},
      {"ibgpu.io/usable-gpus", "0.2.3"},     {"ibgpu.io/usable-gpu-count", "3"},
      {"ibgpu.io/usable-rails", "mlx5_0-1"}, {"ibgpu.io/usable-rail-count", "1"}};
  EXPECT_EQ(k.labels, labels);
  EXPECT_EQ(k.annotations.at("ibgpu.io/usable"), "gpu0,gpu2,gpu3,mlx5_0:1");
  EXPECT_EQ(k.annotations.at("ibgpu.io/excluded"), "gpu1,mlx5_1:1");
  EXPECT_EQ(k.annotations.at("ibgpu.io/reasons"), "degraded: IB_PORTS_MISSING (excluded gpu1,mlx5_1:1)");
  EXPECT_EQ(k.taints, (std::vector<KubernetesTaint>{{"ibgpu.io/unhealthy", "degraded", "PreferNoSchedule"}}));
  for (const auto& [key, value] : k.labels) EXPECT_TRUE(legal_label_value(value)) << key << "=" << value;
}

TEST(KubernetesMap, DrainedNodeHasNothingUsableAndNoSchedule) {
  const auto map = kubernetes_map({node_verdict("node2", HealthState::failed, Action::drain, {}, {"gpu0", "gpu1"},
                                                {Reason{ReasonCode::PROBE_TIMEOUT, "cluster.gather: no results",
                                                        "cluster.gather", std::nullopt, std::nullopt}})});
  const KubernetesNode& k = map.at("node2");
  EXPECT_EQ(k.labels.at("ibgpu.io/state"), "failed");
  EXPECT_EQ(k.labels.at("ibgpu.io/admission"), "drain");
  EXPECT_EQ(k.labels.at("ibgpu.io/usable-gpus"), "none");
  EXPECT_EQ(k.labels.at("ibgpu.io/usable-gpu-count"), "0");
  EXPECT_EQ(k.labels.at("ibgpu.io/usable-rails"), "none");
  EXPECT_EQ(k.taints, (std::vector<KubernetesTaint>{{"ibgpu.io/unhealthy", "failed", "NoSchedule"}}));

  const auto unknown = kubernetes_map({node_verdict("node3", HealthState::unknown, Action::drain, {}, {})});
  EXPECT_EQ(unknown.at("node3").taints,
            (std::vector<KubernetesTaint>{{"ibgpu.io/unhealthy", "unknown", "NoSchedule"}}));
}

TEST(KubernetesMap, HealthyNodeHasNoTaint) {
  const auto map =
      kubernetes_map({node_verdict("node4", HealthState::healthy, Action::admit, {"gpu0", "mlx5_0:1"}, {})});
  EXPECT_TRUE(map.at("node4").taints.empty());
  EXPECT_EQ(map.at("node4").labels.at("ibgpu.io/admission"), "admit");
  EXPECT_EQ(map.at("node4").annotations.at("ibgpu.io/excluded"), "");
}

TEST(KubernetesMap, RailListTooLongForALabelBecomesACount) {
  std::vector<std::string> usable;
  for (int i = 0; i < 12; ++i) usable.push_back("mlx5_" + std::to_string(i) + ":1");
  const auto map =
      kubernetes_map({node_verdict("big", HealthState::degraded, Action::admit_degraded, usable, {"mlx5_12:1"})});
  const KubernetesNode& k = map.at("big");
  EXPECT_EQ(k.labels.at("ibgpu.io/usable-rails"), "12-of-13");
  EXPECT_EQ(k.labels.at("ibgpu.io/usable-rail-count"), "12");
  EXPECT_EQ(k.annotations.at("ibgpu.io/usable").substr(0, 18), "mlx5_0:1,mlx5_1:1,");  // the full list stays
}

TEST(KubernetesMap, ANodeInAnNvlinkDomainCarriesItAndOthersDoNot) {
  const std::vector<Verdict> verdicts{node_verdict("tray01", HealthState::healthy, Action::admit, {"gpu0"}, {}),
                                      node_verdict("tray02", HealthState::healthy, Action::admit, {"gpu0"}, {})};
  const NvlinkDomain rack{"8c1f4a2e-5b3d-4e6f-9a71-0b2c3d4e5f60", 32766};
  const auto map = kubernetes_map(verdicts, {{"tray01", rack}});
  const KubernetesNode& k = map.at("tray01");
  EXPECT_EQ(k.labels.at("ibgpu.io/nvlink-cluster"), "8c1f4a2e-5b3d-4e6f-9a71-0b2c3d4e5f60");
  EXPECT_EQ(k.labels.at("ibgpu.io/nvlink-clique"), "32766");
  EXPECT_EQ(k.annotations.at("ibgpu.io/nvlink-domain"), "8c1f4a2e-5b3d-4e6f-9a71-0b2c3d4e5f60/clique 32766");
  EXPECT_EQ(map.at("tray02").labels.count("ibgpu.io/nvlink-clique"), 0u);
  EXPECT_EQ(map.at("tray02").annotations.count("ibgpu.io/nvlink-domain"), 0u);
}

TEST(KubernetesMap, MapsEveryNodeAndNothingElse) {
  std::vector<Verdict> verdicts{node_verdict("a", HealthState::healthy, Action::admit, {}, {}),
                                node_verdict("b", HealthState::failed, Action::drain, {}, {})};
  verdicts.push_back(Verdict{Entity::gpu("a", "gpu0"), HealthState::healthy, {}, std::nullopt});
  const auto map = kubernetes_map(verdicts);
  EXPECT_EQ(map.size(), 2u);
  EXPECT_EQ(map.count("a/gpu0"), 0u);
}

}  // namespace
}  // namespace ibgpu
