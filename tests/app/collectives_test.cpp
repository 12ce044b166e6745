#include "app/collectives.h"

#include <gtest/gtest.h>

namespace ibgpu {
namespace {

World on_hosts(std::vector<std::string> hosts, int rank = 0) {
  World w;
  w.rank = rank;
  w.size = static_cast<int>(hosts.size());
  w.mpi = true;
  w.places = places_from_hosts(hosts);
  return w;
}

using Groups = std::vector<std::vector<int>>;

TEST(Placement, NamesRoundTrip) {
  for (Placement p : {Placement::job, Placement::node, Placement::rail})
    EXPECT_EQ(placement_from_string(to_string(p)), p);
  EXPECT_FALSE(placement_from_string("rack"));
}

TEST(Placement, GroupsByHostAndByLocalRank) {
  // Ranks as a launcher might interleave them: a b a b c c.
  const World w = on_hosts({"a", "b", "a", "b", "c", "c"});
  EXPECT_EQ(placement_groups(w, Placement::job), (Groups{{0, 1, 2, 3, 4, 5}}));
  EXPECT_EQ(placement_groups(w, Placement::node), (Groups{{0, 2}, {1, 3}, {4, 5}}));
  // Local rank 0 on every host is one rail, local rank 1 the other.
  EXPECT_EQ(placement_groups(w, Placement::rail), (Groups{{0, 1, 4}, {2, 3, 5}}));
}

TEST(Placement, UnevenHostsLeaveSmallerRails) {
  const World w = on_hosts({"a", "a", "a", "b"});
  EXPECT_EQ(placement_groups(w, Placement::node), (Groups{{0, 1, 2}, {3}}));
  EXPECT_EQ(placement_groups(w, Placement::rail), (Groups{{0, 3}, {1}, {2}}));
}

TEST(Placement, DefaultsOnlyWhatDiffersFromTheJob) {
  using P = std::vector<Placement>;
  EXPECT_EQ(default_placements(on_hosts({"a"})), (P{Placement::job}));
  EXPECT_EQ(default_placements(on_hosts({"a", "a", "a", "a"})), (P{Placement::job}));  // a node is the job
  EXPECT_EQ(default_placements(on_hosts({"a", "b", "c"})), (P{Placement::job}));       // a rail is the job
  EXPECT_EQ(default_placements(on_hosts({"a", "a", "b", "b"})), (P{Placement::job, Placement::node, Placement::rail}));
}

TEST(Subworld, CountsWithinTheGroupAndKeepsLaunchRanks) {
  const World w = on_hosts({"a", "b", "a", "b"}, 2);
  const World g = subworld(w, {0, 2});
  EXPECT_EQ(g.rank, 1);
  EXPECT_EQ(g.size, 2);
  EXPECT_EQ(g.self().rank, 2);  // the rank the operator launched
  EXPECT_EQ(g.host(), "a");
  EXPECT_EQ(g.hosts(), (std::vector<std::string>{"a"}));
  EXPECT_THROW(subworld(w, {1, 3}), std::invalid_argument);  // rank 2 is not a member
  EXPECT_THROW(subworld(w, {2, 0}), std::invalid_argument);  // not ascending
  EXPECT_THROW(subworld(w, {2, 4}), std::invalid_argument);  // no rank 4
}

}  // namespace
}  // namespace ibgpu
