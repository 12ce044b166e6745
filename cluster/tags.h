#pragma once
// Every MPI tag ibgpu sends with, in one table: two uses of one tag on one communicator would
// take each other's messages (a rank draining one kind with MPI_ANY_SOURCE eats the other).
namespace ibgpu {

inline constexpr int kTagGather = 101;     // each rank's results to rank 0 (cluster/gather.h)
inline constexpr int kTagRelease = 102;    // rank 0's exit code to the ranks (cluster/world.h)
inline constexpr int kTagHeartbeat = 103;  // a sign of life and the sender's step (cluster/liveness.h)
inline constexpr int kTagRollCall = 104;   // who is here before a collective
inline constexpr int kTagConsult = 105;    // the re-test plan between the steps (app/retests.h)
inline constexpr int kTagBurnIn = 106;     // whether and when the next burn-in round starts
inline constexpr int kTagEndVote = 107;   // at the end, each rank's "requests I gave up on" to rank 0 (cluster/world.h)
inline constexpr int kTagLost = 108;      // "I gave up on rank R", to rank 0 (cluster/liveness.h)
inline constexpr int kTagControls = 109;  // after the all-reduce, which groups' errors get a control
inline constexpr int kTagLive = 110;      // live rows and progress to rank 0 (app/live_events.h)
inline constexpr int kTagNetBase = 1000;  // network meetings: 32 tags per round from here (app/network.cpp)

// The all-reduce of the ranks that came when one was lost, by point to point on the job's
// communicator (app/collectives.cpp): per burn-in round (of kSurvivorsRounds, then again) and per
// placement (of kMaxPlacements: job, node, rail), one tag for each kind of message, so a late
// message of a run given up on never lands in a later one. From 200 to 776, below kTagNetBase.
// A message left unread by a run given up on (a member the root no longer waited for) could
// still be taken kSurvivorsRounds burn-in rounds later by the same placement's run.
inline constexpr int kMaxPlacements = 3;
inline constexpr int kSurvivorsRounds = 64;
inline constexpr int kTagSurvivorsKinds = 3;
inline constexpr int kTagSurvivorsChoice = 0;  // whether every rank can run nccl
inline constexpr int kTagSurvivorsAgree = 1;   // the sweep's agreements (cluster/group_channel.h)
inline constexpr int kTagSurvivorsRing = 2;    // the ring's data (probes/collective/ring_allreduce.h)
inline constexpr int kTagSurvivorsBase = 200;
static_assert(kTagSurvivorsBase + kSurvivorsRounds * kMaxPlacements * kTagSurvivorsKinds <= kTagNetBase);

// The control of an all-reduce that ended in an error (health/controls.h): the group's ranks run it
// again by a ring of point-to-point messages on the job's communicator, per burn-in round (of
// kControlRounds) and placement, with a tag for its agreements and one for the ring.
inline constexpr int kControlRounds = 32;
inline constexpr int kTagControlKinds = 2;
inline constexpr int kTagControlAgree = 0;
inline constexpr int kTagControlRing = 1;
inline constexpr int kTagControlBase = kTagSurvivorsBase + kSurvivorsRounds * kMaxPlacements * kTagSurvivorsKinds;
static_assert(kTagControlBase + kControlRounds * kMaxPlacements * kTagControlKinds <= kTagNetBase);

}  // namespace ibgpu
