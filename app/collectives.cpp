#include "app/collectives.h"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "app/live_events.h"
#include "app/pipeline.h"
#include "cluster/gather.h"
#include "cluster/group_channel.h"
#include "cluster/kept_memory.h"
#include "cluster/line.h"
#include "cluster/liveness.h"
#include "cluster/tags.h"
#include "cluster/world.h"
#include "core/errors.h"
#include "core/text.h"
#include "core/units.h"
#include "health/controls.h"
#include "probes/collective/allreduce_results.h"
#include "probes/collective/mpi_allreduce.h"
#include "probes/collective/nccl_allreduce.h"
#include "probes/collective/nccl_log.h"
#include "probes/collective/pattern.h"
#include "probes/collective/ring_allreduce.h"

namespace ibgpu {

namespace {

// Owns a communicator made from the session's (errors returned); MPI_COMM_NULL for a rank in none.
class OwnedComm {
 public:
  OwnedComm() = default;
  explicit OwnedComm(MPI_Comm comm) : comm_(comm) {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  }
  ~OwnedComm() {
    if (comm_ != MPI_COMM_NULL && !mpi_lost()) MPI_Comm_free(&comm_);
  }
  OwnedComm(OwnedComm&& other) noexcept : comm_(std::exchange(other.comm_, MPI_COMM_NULL)) {}
  OwnedComm& operator=(OwnedComm&& other) noexcept {
    std::swap(comm_, other.comm_);
    return *this;
  }
  MPI_Comm get() const { return comm_; }

  // Every rank of `parent` together: the ranks of one colour (MPI_UNDEFINED: none).
  static OwnedComm split(MPI_Comm parent, int color, int key) {
    MPI_Comm comm = MPI_COMM_NULL;
    mpi_check(MPI_Comm_split(parent, color, key, &comm), "MPI_Comm_split");
    return OwnedComm(comm);
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

std::string group_name(const World& world, Placement placement, const std::vector<int>& members) {
  switch (placement) {
    case Placement::job:
      return "job";
    case Placement::node:
      return world.places.at(static_cast<std::size_t>(members.front())).host;
    case Placement::rail:
      return "local rank " + std::to_string(world.places.at(static_cast<std::size_t>(members.front())).local_rank);
  }
  return {};
}

std::string rank_names(const World& world, const std::vector<int>& ranks) {
  std::string text;
  for (int r : ranks)
    text += (text.empty() ? "" : ", ") + std::string("host ") + world.places.at(static_cast<std::size_t>(r)).host +
            " rank " + std::to_string(r);
  return text;
}

// Where a wait among the ranks that came ended on one member: that member's job rank (params).
constexpr const char* kWaitedOnRank = "waited_on_rank";

// Where a placement's ranks talk: their own communicator, or, when a rank was lost, point to point
// among them on the job's communicator (cluster/group_channel.h), on tags of their own for each
// placement and burn-in round, so that a late message of one never lands in another.
struct GroupLink {
  MPI_Comm comm = MPI_COMM_NULL;  // the group's communicator, or the job's for `members`
  std::vector<int> members;       // job ranks; empty: every rank of `comm`
  int ring_tag = -1;              // with members: the ring's tag
  std::unique_ptr<GroupChannel> channel;

  static GroupLink whole(MPI_Comm comm) {
    GroupLink link;
    link.comm = comm;
    link.channel = std::make_unique<CommChannel>(comm);
    return link;
  }
  static GroupLink among(MPI_Comm job, std::vector<int> members, int tag, int ring_tag = -1) {
    GroupLink link;
    link.comm = job;
    link.members = std::move(members);
    link.ring_tag = ring_tag;
    link.channel = std::make_unique<MemberChannel>(job, link.members, tag);
    return link;
  }
};

// A tag of a range of cluster/tags.h laid out by burn-in round (of `rounds`), placement and kind:
// the same on every rank that runs that step of that round.
int round_tag(int base, long long rounds, int kinds, std::size_t placement_index, int kind) {
  const long long round = (current_phase() >> 32) % rounds;
  return base +
         static_cast<int>((round * static_cast<long long>(kMaxPlacements) + static_cast<long long>(placement_index)) *
                          kinds) +
         kind;
}

// The tags of the survivors' run of a placement: apart for the backend choice, the agreements and
// the ring.
int survivors_tag(std::size_t placement_index, int kind) {
  return round_tag(kTagSurvivorsBase, kSurvivorsRounds, kTagSurvivorsKinds, placement_index, kind);
}

// MPI times blocking calls only in the job's all-reduce: every rank is in it, so a rank that stops
// inside it leaves all the others without MPI together, and they end over the line. Groups run
// beside other groups poll, so that a rank given up on keeps MPI for the roll calls and the gather
// of ranks whose groups went on (probes/collective/mpi_allreduce.h). The ranks that came when one
// was lost run a ring of their own messages (probes/collective/ring_allreduce.h).
std::unique_ptr<AllReduceBackend> make_backend(Transport backend, GroupLink& link, const World& group,
                                               Placement placement, const CollectiveOptions& options) {
  if (backend == Transport::nccl) {
    const int device = options.device >= 0 ? options.device : group.self().local_rank;
    return std::make_unique<NcclAllReduce>(link.channel.get(), group.rank, group.size, device,
                                           options.settings.timeout);
  }
  if (!link.members.empty())
    return std::make_unique<RingAllReduce>(link.comm, link.members, link.ring_tag, options.settings.timeout);
  return std::make_unique<MpiAllReduce>(link.comm, options.settings.timeout,
                                        placement == Placement::job && line_open());
}

// The backend that runs: the one asked for, or with --backend auto, whether every rank can run
// NCCL. Everyone answered the roll call just before, so the wait is short; a timeout means mpi.
Transport choose_backend(const World& world, GroupLink& link, const CollectiveOptions& options,
                         std::string& why_not_nccl) {
  if (options.backend == CollectiveBackend::nccl) return Transport::nccl;
  if (options.backend == CollectiveBackend::mpi) return Transport::mpi;
  const auto probe = make_backend(Transport::nccl, link, world, Placement::job, options);
  why_not_nccl = probe->unavailable_reason();
  if (!world.mpi) return why_not_nccl.empty() ? Transport::nccl : Transport::mpi;
  const auto total = link.channel->combine(why_not_nccl.empty() ? 0 : 1, Combine::sum, options.settings.timeout);
  if (!total) return Transport::mpi;
  const int cannot = static_cast<int>(*total);
  if (cannot > 0 && why_not_nccl.empty())
    why_not_nccl = std::to_string(cannot) + " of " + std::to_string(world.size) + " ranks cannot run nccl";
  return cannot == 0 ? Transport::nccl : Transport::mpi;
}

// While the ranks that came run a group by point to point, each wait is for one peer and ends
// only on its silence: the root beats to every member, the others to the root and their ring
// neighbours, so a member waiting on someone else is never taken for silent.
std::vector<int> group_audience(const std::vector<int>& members, int self) {
  const auto at = std::find(members.begin(), members.end(), self);
  if (members.empty() || at == members.end()) return {};
  if (at == members.begin()) return members;
  const std::size_t i = static_cast<std::size_t>(at - members.begin()), n = members.size();
  return {members.front(), members[(i + 1) % n], members[(i + n - 1) % n]};
}

void beat_to_group(const std::vector<int>& members, int self) { set_heartbeat_audience(group_audience(members, self)); }

// Leaving a step where others may still wait on this rank by point to point: the next step's
// number to them at once, so they see this rank has gone on rather than take it for silent (and
// lost) a --timeout later; then beats to rank 0 alone again.
void leave_step(int next_phase, const std::vector<int>& audience) {
  set_phase(next_phase);
  set_heartbeat_audience(audience);
  heartbeat_now();
  set_heartbeat_audience({});
}

void label(std::vector<ProbeResult>& results, std::size_t from, Placement placement, const std::string& group,
           CollectiveBackend requested, const std::string& why_not_nccl) {
  // Multi-node NVLink as the run set it (NCCL reads it once a process): "0" sends an all-reduce
  // within one NVLink domain over the rails, and the judge holds it to the rails' floor.
  const char* mnnvl = std::getenv("NCCL_MNNVL_ENABLE");
  for (std::size_t i = from; i < results.size(); ++i) {
    auto& params = results[i].params;
    params["placement"] = to_string(placement);
    params["group"] = group;
    params["backend_requested"] = to_string(requested);
    if (requested == CollectiveBackend::automatic && !why_not_nccl.empty()) params["nccl_unavailable"] = why_not_nccl;
    if (mnnvl && results[i].kind().transport == Transport::nccl) params["nccl_mnnvl_enable"] = mnnvl;
  }
}

// NCCL's own log of this process, for every all-reduce it runs: one capture a process, made once
// NCCL is chosen and before its first call that logs (NCCL opens its log once; loading the
// library and ncclGetVersion log nothing), kept for every later round of a burn-in.
NcclLogCapture& nccl_log() {
  static NcclLogCapture capture;
  return capture;
}

// After an NCCL sweep (its results from `from`): what NCCL's log says this rank's communicator used,
// where the group spans hosts (its network; a group on one host is its own NVLink or PCIe), and
// what NCCL warned of meanwhile, on this rank's error or timeout of the sweep (params.nccl_warnings,
// the last in its words). Where the log is the caller's, the group's first rank says so once.
void record_nccl_transport(std::vector<ProbeResult>& results, std::size_t from, const World& group,
                           const AllReduceBackend& backend) {
  NcclLogCapture& capture = nccl_log();
  const NcclTransportLog log = capture.take();  // read even where not recorded: the next group's lines follow
  for (std::size_t i = from; i < results.size(); ++i) attach_nccl_warnings(results[i], log);
  if (group.hosts().size() < 2) return;
  if (capture.why_off().empty())
    results.push_back(nccl_transport_result(group.host(), group.self().rank, backend.device(), log));
  else if (group.rank == 0)
    results.push_back(skipped(kNcclTransportProbe, Scope{{group.host()}, {group.self().rank}, {}}, capture.why_off(),
                              SkippedBy::ibgpu));
}

// Ranks absent from a collective's roll call: the timeout is theirs alone (their hosts, their ranks).
// The ranks that came run it among themselves when they are two or more (`survivors_run`); else
// for them it is not measured (skipped by ibgpu: not judged), never failed.
void absent_from_collective(std::vector<ProbeResult>& results, const std::string& id, const World& world,
                            const std::vector<int>& absent, Placement placement, Seconds timeout, bool survivors_run) {
  const std::string what = "the " + std::string(to_string(placement)) + " all-reduce";
  ProbeResult lost;
  lost.id = id;
  lost.status = ProbeStatus::timeout;
  lost.scope.ranks = absent;
  for (int r : absent) {
    const std::string& host = world.places.at(static_cast<std::size_t>(r)).host;
    if (std::find(lost.scope.hosts.begin(), lost.scope.hosts.end(), host) == lost.scope.hosts.end())
      lost.scope.hosts.push_back(host);
  }
  lost.error = "not every rank arrived for " + what + ": " + rank_names(world, absent) + " silent for " +
               duration_text(timeout) + (survivors_run ? "; it ran among the ranks that came" : "");
  if (survivors_run) {
    results.push_back(std::move(lost));
    return;
  }
  Scope present;
  for (const auto& place : world.places) {
    if (std::find(absent.begin(), absent.end(), place.rank) != absent.end()) continue;
    present.ranks.push_back(place.rank);
    if (std::find(present.hosts.begin(), present.hosts.end(), place.host) == present.hosts.end())
      present.hosts.push_back(place.host);
  }
  results.push_back(std::move(lost));
  // The others are not to blame: the absent rank is (`lost` above).
  results.push_back(
      skipped(id, present, "not run: " + rank_names(world, absent) + " did not arrive for " + what, SkippedBy::ibgpu));
}

// Among the ranks that came, this rank's waits that ended on a member (the channel's root names the
// one that did not come to all; the ring knows its neighbour): the member's rank, for rank 0 to
// judge with the job's lost ranks in hand (excuse_waits_on_lost).
void note_waited_on(std::vector<ProbeResult>& results, const World& world, std::optional<int> missing,
                    std::optional<int> ring_peer) {
  const std::optional<int> peer = missing ? missing : ring_peer;
  if (!peer || *peer == world.rank || *peer < 0 || *peer >= world.size) return;
  for (ProbeResult& r : results)
    if (r.status == ProbeStatus::timeout && r.scope.ranks == std::vector<int>{world.rank})
      r.params[kWaitedOnRank] = *peer;
}

// The tags of a group control: its agreements and its ring.
int control_tag(std::size_t placement_index, int kind) {
  return round_tag(kTagControlBase, kControlRounds, kTagControlKinds, placement_index, kind);
}

// A control sums float once, out of place, at the swept sizes up to 16 MiB (16 MiB where every
// swept size is larger): it asks whether the group's ranks can sum at all, not how fast.
AllReduceSettings control_settings(const AllReduceSettings& swept) {
  constexpr std::size_t kLargest = std::size_t{16} << 20, kFloat = 4;
  AllReduceSettings s;
  s.sizes.clear();
  for (std::size_t size : swept.sizes)
    if (size <= kLargest) s.sizes.push_back(std::max(kFloat, size / kFloat * kFloat));
  if (s.sizes.empty() && !swept.sizes.empty()) s.sizes.push_back(kLargest);
  std::sort(s.sizes.begin(), s.sizes.end());
  s.sizes.erase(std::unique(s.sizes.begin(), s.sizes.end()), s.sizes.end());
  s.dtype = DType::f32;
  s.iters = 1;
  s.warmup = 0;
  s.in_place = false;
  s.timeout = swept.timeout;
  s.time_cap_s = swept.time_cap_s;
  return s;
}

// After the last placement (health/controls.h): every rank tells rank 0 which of its groups ended
// in its own error, rank 0 orders a control for each such group, and the group's
// ranks run it by a ring of point-to-point messages. A rank that left the all-reduce (`took_part`
// false) answers, with nothing to control, and runs none: its groups' controls then tell nothing.
void run_group_controls(MpiSession& session, const std::vector<GroupControlOrder>& errored, bool took_part,
                        const CollectiveOptions& options, std::vector<ProbeResult>& results) {
  const World& world = session.world();
  if (took_part) set_phase(kPhaseControls);
  const auto answer = consult(
      session.comm(), kTagControls, to_text(errored), options.settings.timeout,
      [&](const std::vector<std::optional<std::string>>& payloads) { return to_text(plan_group_controls(payloads)); });
  const auto orders = answer ? group_controls_from_text(*answer) : std::nullopt;
  if (!took_part || !orders) return;
  for (const GroupControlOrder& order : *orders) {
    const auto placement = placement_from_string(order.placement);
    if (!placement || std::find(order.ranks.begin(), order.ranks.end(), world.rank) == order.ranks.end()) continue;
    if (stop_requested() || mpi_lost()) return;
    GroupLink link = GroupLink::among(session.comm(), order.ranks, control_tag(order.index, kTagControlAgree),
                                      control_tag(order.index, kTagControlRing));
    const World group = subworld(world, order.ranks);
    RingAllReduce ring(link.comm, link.members, link.ring_tag, options.settings.timeout);
    std::vector<ProbeResult> got;
    beat_to_group(link.members, world.rank);
    try {
      got = run_allreduce(ring, *link.channel, group, control_settings(options.settings));
    } catch (const std::exception& e) {  // settings the ring cannot sum: no control, said why
      if (group.rank == 0)
        got.push_back(skipped(allreduce_probe_id("mpi"), world_scope(group),
                              std::string("control not run: ") + e.what(), SkippedBy::ibgpu));
    }
    set_heartbeat_audience({});
    note_waited_on(got, world, link.channel->missing(), ring.peer_given_up_on());
    for (ProbeResult& r : got) mark_control(r, order);
    // Its own rows in the tables, apart from the figures of the sweep it controls.
    label(got, 0, *placement, group_name(world, *placement, order.ranks) + " (control)", options.backend, "");
    results.insert(results.end(), got.begin(), got.end());
  }
}

}  // namespace

void excuse_waits_on_lost(std::vector<ProbeResult>& results, const World& world, const std::vector<int>& lost) {
  const std::set<int> gone(lost.begin(), lost.end());
  // Per placement, once: each rank's group and the lost members of each group. At fleet scale a
  // blocking all-reduce that a rank stopped leaves a timeout from every other rank.
  struct LostMates {
    std::vector<std::size_t> group_of;       // by rank
    std::vector<std::vector<int>> by_group;  // the lost members of each group
  };
  std::map<Placement, LostMates> mates;
  auto mates_of = [&](Placement placement) -> const LostMates& {
    const auto [it, fresh] = mates.try_emplace(placement);
    if (fresh) {
      LostMates& m = it->second;
      m.group_of.resize(static_cast<std::size_t>(world.size));
      for (const std::vector<int>& group : placement_groups(world, placement)) {
        m.by_group.emplace_back();
        for (int member : group) {
          m.group_of[static_cast<std::size_t>(member)] = m.by_group.size() - 1;
          if (gone.count(member)) m.by_group.back().push_back(member);
        }
      }
    }
    return it->second;
  };
  // Whom each rank's wait ended on, per placement. A wait that ended because its peer left, where
  // that peer left because of another, is the other's doing: ranks 0 and 3 among the ranks that
  // came both waiting on rank 2, rank 3 (in its wait on rank 0 at that moment) sees rank 0 leave
  // once rank 0 gave up on rank 2, and rank 2 is the one named.
  auto waited_on = [](const ProbeResult& r) -> std::optional<int> {
    if (r.status != ProbeStatus::timeout || !r.kind().all_reduce() || r.scope.ranks.size() != 1) return std::nullopt;
    const auto peer = r.params.find(kWaitedOnRank);
    if (peer == r.params.end() || !peer->is_number_integer()) return std::nullopt;
    return peer->get<int>();
  };
  std::map<std::pair<std::string, int>, int> waits;  // (placement, rank) -> the peer its wait ended on
  for (const ProbeResult& r : results)
    if (const auto peer = waited_on(r))
      waits.emplace(std::pair{r.params.value("placement", std::string()), r.scope.ranks.front()}, *peer);
  auto first_to_leave = [&](const std::string& placement, int rank, int peer) {
    std::set<int> seen{rank, peer};
    while (!gone.count(peer)) {
      const auto next = waits.find({placement, peer});
      if (next == waits.end() || !seen.insert(next->second).second) break;
      peer = next->second;
    }
    return peer;
  };
  for (ProbeResult& r : results) {
    if (r.status != ProbeStatus::timeout || !r.kind().all_reduce() || r.scope.ranks.size() != 1) continue;
    const auto placement = placement_from_string(r.params.value("placement", std::string()));
    const int rank = r.scope.ranks.front();
    // The lost rank's own timeout (absent from a roll call) is its to keep.
    if (!placement || rank < 0 || rank >= world.size || gone.count(rank)) continue;
    // A wait among the ranks that came that ended on one member: that member's doing, whether it
    // fell silent (lost) or left the step while this rank still waited in it.
    if (const auto peer = waited_on(r)) {
      const int other = *peer;
      if (other >= 0 && other < world.size && other != rank) {
        const int first = first_to_leave(r.params.value("placement", std::string()), rank, other);
        const bool valid = first >= 0 && first < world.size;
        const int named = valid ? first : other;
        r.status = ProbeStatus::skipped;
        r.skipped_by = SkippedBy::ibgpu;
        r.reason =
            "not measured: " + rank_names(world, {named}) +
            (gone.count(named) ? " was lost during it (no results came from it)"
                               : " left the all-reduce of the ranks that came") +
            (named == other ? std::string(gone.count(named) ? ": " : " while this rank waited in it: ")
                            : ", and " + rank_names(world, {other}) + ", which this rank waited on, left after it: ") +
            r.error.value_or("no detail");
        r.error.reset();
        continue;
      }
    }
    if (gone.empty()) continue;
    const LostMates& m = mates_of(*placement);
    const std::vector<int>& with_it = m.by_group[m.group_of[static_cast<std::size_t>(rank)]];
    if (with_it.empty()) continue;
    r.status = ProbeStatus::skipped;
    r.skipped_by = SkippedBy::ibgpu;
    r.reason = "not measured: " + rank_names(world, with_it) +
               " was lost during it (no results came from it): " + r.error.value_or("no detail");
    r.error.reset();
  }
}

const char* to_string(CollectiveBackend backend) {
  switch (backend) {
    case CollectiveBackend::nccl:
      return "nccl";
    case CollectiveBackend::mpi:
      return "mpi";
    case CollectiveBackend::automatic:
      return "auto";
  }
  return "?";
}

std::optional<CollectiveBackend> collective_backend_from_string(const std::string& text) {
  for (CollectiveBackend b : {CollectiveBackend::nccl, CollectiveBackend::mpi, CollectiveBackend::automatic})
    if (text == to_string(b)) return b;
  return std::nullopt;
}

const char* to_string(Placement placement) {
  switch (placement) {
    case Placement::job:
      return "job";
    case Placement::node:
      return "node";
    case Placement::rail:
      return "rail";
  }
  return "?";
}

std::optional<Placement> placement_from_string(const std::string& text) {
  for (Placement p : {Placement::job, Placement::node, Placement::rail})
    if (text == to_string(p)) return p;
  return std::nullopt;
}

std::vector<std::vector<int>> placement_groups(const World& world, Placement placement) {
  std::vector<std::vector<int>> groups;
  std::map<std::string, std::size_t> index;  // group key -> position in groups
  for (const auto& place : world.places) {
    std::string key;
    if (placement == Placement::node) key = place.host;
    if (placement == Placement::rail) key = std::to_string(place.local_rank);
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(place.rank);
  }
  for (auto& g : groups) std::sort(g.begin(), g.end());
  return groups;
}

std::vector<Placement> default_placements(const World& world) {
  std::vector<Placement> out{Placement::job};
  const bool shared_host =
      std::any_of(world.places.begin(), world.places.end(), [](const RankPlace& p) { return p.local_size > 1; });
  if (shared_host && world.hosts().size() > 1) {
    out.push_back(Placement::node);
    out.push_back(Placement::rail);
  }
  return out;
}

CollectiveOptions check_allreduce_defaults() {
  CollectiveOptions o;
  o.settings.sizes = {std::size_t{1} << 20, std::size_t{16} << 20};
  o.settings.iters = 10;
  o.settings.warmup = 2;
  return o;
}

std::string collectives_preflight(const MpiSession& session, const CollectiveOptions& options) {
  const AllReduceSettings& s = options.settings;
  try {
    const std::vector<std::size_t> counts = element_counts(s.sizes, s.dtype);
    if (s.check) check_pattern_fits(s.dtype, session.world().size);
    if (options.backend == CollectiveBackend::mpi) {
      MpiAllReduce mpi(session.comm(), s.timeout);
      for (std::size_t count : counts)
        if (std::string why = mpi.unsupported(s.dtype, count); !why.empty()) return "mpi all-reduce: " + why;
    }
  } catch (const std::invalid_argument& e) {
    return std::string("all-reduce: ") + e.what();
  }
  return {};
}

std::vector<ProbeResult> run_collectives(MpiSession& session, const CollectiveOptions& options, LiveChannel& live) {
  const World& world = session.world();
  const Seconds silence(options.settings.timeout);
  std::vector<ProbeResult> results;
  std::string why_not_nccl;
  std::optional<Transport> chosen;         // the backend that runs, once the ranks agreed on it
  std::vector<GroupControlOrder> errored;  // this rank's groups that ended in its own error
  bool took_part = true;                   // false once this rank left the all-reduce
  const auto placements = options.placements.empty() ? default_placements(world) : options.placements;
  if (placements.size() > static_cast<std::size_t>(kMaxPlacements))
    throw std::logic_error("more all-reduce placements than the phases and tags allow");
  for (std::size_t index = 0; index < placements.size(); ++index) {
    const Placement placement = placements[index];
    // Each placement a step of its own: a rank that left one (it heard no roll call answer) is
    // seen to have left by those still waiting for it there (cluster/liveness.h).
    set_phase(kPhaseCollectives + static_cast<int>(index));
    // 0. After a stop signal, or once this process has lost MPI, nothing new starts: what is left
    //    is not measured.
    if (stop_requested() || mpi_lost()) {
      if (world.rank == 0) {
        results.push_back(
            skipped(allreduce_probe_id(chosen ? to_string(*chosen) : to_string(options.backend)), world_scope(world),
                    stop_requested() ? "interrupted by a stop signal (job teardown or operator): not run"
                                     : "not run: this rank lost MPI in an earlier all-reduce (" + why_mpi_lost() + ")",
                    SkippedBy::ibgpu));
        label(results, results.size() - 1, placement, "-", options.backend, why_not_nccl);
      }
      continue;
    }
    // 1. Who is here? An absent rank is named, and nobody enters a collective with it: the ranks
    //    that came run it among themselves, by point to point, when they are two or more.
    std::optional<World> survivors;
    if (world.mpi) {
      auto absent = roll_call(session.comm(), silence);
      if (world.rank == options.test_deaf_rank && index == 0) absent.reset();  // heard nothing back
      const int came = absent ? world.size - static_cast<int>(absent->size()) : 0;
      if (!absent || !absent->empty()) {
        if (world.rank == 0 || !absent) {
          const std::size_t from = results.size();
          const std::string id = allreduce_probe_id(chosen ? to_string(*chosen) : to_string(options.backend));
          if (absent) {
            absent_from_collective(results, id, world, *absent, placement, options.settings.timeout, came > 1);
          } else {
            ProbeResult r;
            r.id = id;
            r.status = ProbeStatus::timeout;
            r.scope = rank_scope(world, "");
            r.error = "no word from rank 0 before the " + std::string(to_string(placement)) + " all-reduce";
            results.push_back(std::move(r));
          }
          mark_interrupted(results, from);
          label(results, from, placement, "job", options.backend, why_not_nccl);
        }
        // A rank that heard nothing back has lost step with rank 0 (which may have chosen the
        // backend, or counted it among the ranks that came): it takes no part in what is left.
        if (!absent) {
          // Past every placement (the report), told to every group-mate: any may be its group's root.
          std::vector<int> mates;
          for (const std::vector<int>& g : placement_groups(world, placement))
            if (std::find(g.begin(), g.end(), world.rank) != g.end()) mates = g;
          leave_step(kPhaseReport, mates);
          took_part = false;
          break;
        }
        if (came < 2) continue;
        std::vector<int> present;
        for (int r = 0; r < world.size; ++r)
          if (std::find(absent->begin(), absent->end(), r) == absent->end()) present.push_back(r);
        survivors = subworld(world, present);
      }
    }
    // The ranks that run this placement, and where they agree.
    const World& here = survivors ? *survivors : world;
    if (!chosen) {
      std::vector<int> everyone;
      for (const RankPlace& place : here.places) everyone.push_back(place.rank);
      GroupLink all = survivors ? GroupLink::among(session.comm(), everyone, survivors_tag(index, kTagSurvivorsChoice))
                                : GroupLink::whole(session.comm());
      beat_to_group(all.members, world.rank);
      chosen = choose_backend(here, all, options, why_not_nccl);
      if (*chosen == Transport::nccl) nccl_log();  // before NCCL's first logging call (ncclGetUniqueId)
      set_heartbeat_audience({});
    }
    // The job's MPI all-reduce blocks: a rank that stops inside it leaves the others only the line
    // (opened by every rank: not among survivors, whose job all-reduce polls instead).
    if (world.mpi && world.size > 1 && *chosen == Transport::mpi && placement == Placement::job && !survivors)
      open_line(session.comm(), world.rank, world.size, silence);

    // 2. This rank's group, and a communicator for it (MPI_COMM_NULL alone in a group).
    const auto groups = placement_groups(here, placement);
    const auto mine = std::find_if(groups.begin(), groups.end(), [&](const std::vector<int>& g) {
      return std::find(g.begin(), g.end(), world.rank) != g.end();
    });
    const bool measured = std::any_of(groups.begin(), groups.end(), [](const auto& g) { return g.size() > 1; });
    if (!measured && placement != Placement::job) {
      if (world.rank == 0) {
        results.push_back(skipped(allreduce_probe_id(to_string(*chosen)), world_scope(world),
                                  std::string("no ") + to_string(placement) + " group has two ranks or more"));
        label(results, results.size() - 1, placement, "-", options.backend, why_not_nccl);
      }
      continue;
    }
    const World group = subworld(world, *mine);
    OwnedComm split;
    GroupLink link;
    if (survivors) {
      link = GroupLink::among(session.comm(), *mine, survivors_tag(index, kTagSurvivorsAgree),
                              survivors_tag(index, kTagSurvivorsRing));
    } else if (world.mpi && placement != Placement::job) {
      const int color = mine->size() > 1 ? static_cast<int>(mine - groups.begin()) : MPI_UNDEFINED;
      split = OwnedComm::split(session.comm(), color, world.rank);
      link = GroupLink::whole(split.get());
    } else {
      link = GroupLink::whole(session.comm());
    }
    if (mine->size() < 2 && placement != Placement::job) continue;

    // 3. The sweep, in every group at once; the sizes there for the floor alone only over its backend.
    AllReduceSettings settings = options.settings;
    if (*chosen != options.floor_backend && !options.floor_sizes.empty()) {
      std::erase_if(settings.sizes, [&](std::size_t size) {
        return std::find(options.floor_sizes.begin(), options.floor_sizes.end(), size) != options.floor_sizes.end();
      });
      if (world.rank == 0) {
        results.push_back(skipped(allreduce_probe_id(to_string(*chosen)), world_scope(world),
                                  "not run: " + format_sizes(options.floor_sizes) +
                                      " is swept only for the profile's " + to_string(options.floor_backend) +
                                      " floor, and this all-reduce runs over " + to_string(*chosen) +
                                      ", which that floor does not judge",
                                  SkippedBy::ibgpu));
        label(results, results.size() - 1, placement, "-", options.backend, why_not_nccl);
      }
      if (settings.sizes.empty()) continue;
    }
    auto backend = make_backend(*chosen, link, group, placement, options);
    LiveBook* book = world.rank == 0 ? live.book() : nullptr;
    if (book) {
      live.pump();
      const std::size_t modes = (settings.out_of_place ? 1 : 0) + (settings.in_place ? 1 : 0);
      book->allreduce_started("all-reduce " + std::string(to_string(*chosen)) + " " + to_string(placement) + " (" +
                                  group_name(world, placement, *mine) + ", " + count_text(mine->size(), "rank") + ")",
                              settings.out_of_place, settings.in_place, settings.sizes.size() * modes);
      settings.progress = [book, &live](std::size_t done, std::size_t, const ProbeResult* summary) {
        if (summary) book->allreduce_case(*summary, done);
        live.pump();
      };
    }
    if (world.rank == options.test_corrupt_rank) backend->faults.corrupt_result_rank = group.rank;
    if (world.rank == options.test_error_rank && placement == Placement::job) backend->faults.error_rank = group.rank;
    const std::size_t from = results.size();
    beat_to_group(link.members, world.rank);
    std::vector<ProbeResult> swept = run_allreduce(*backend, *link.channel, group, settings);
    leave_step(kPhaseCollectives + static_cast<int>(index) + 1, group_audience(link.members, world.rank));
    if (survivors) note_waited_on(swept, world, link.channel->missing(), backend->peer_given_up_on());
    // An error of this rank's own, where the sweep ran on more than the ring a control runs.
    if (!survivors &&
        std::any_of(swept.begin(), swept.end(), [](const ProbeResult& r) { return r.status == ProbeStatus::error; }))
      errored.push_back(GroupControlOrder{index, to_string(placement), *mine});
    if (book) book->allreduce_done();
    results.insert(results.end(), swept.begin(), swept.end());
    if (*chosen == Transport::nccl) record_nccl_transport(results, from, group, *backend);
    mark_interrupted(results, from);
    label(results, from, placement, group_name(world, placement, *mine), options.backend, why_not_nccl);
  }
  if (world.mpi && world.size > 1 && !stop_requested() && !mpi_lost())
    run_group_controls(session, errored, took_part, options, results);
  return results;
}

}  // namespace ibgpu
