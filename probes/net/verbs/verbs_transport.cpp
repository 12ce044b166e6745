#include "probes/net/verbs/verbs_transport.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "core/errors.h"
#include "probes/ib/traffic.h"
#include "probes/net/verbs/measure.h"

namespace ibgpu {

namespace {

using namespace verbs;

// How long the bandwidth responder sleeps between looks for the end of the run.
constexpr std::chrono::microseconds kResponderNap{100};

// How setting up the connection ended, seen from this side.
struct Setup {
  std::unique_ptr<Endpoint> endpoint;  // null when setup failed
  ProbeStatus status = ProbeStatus::ok;
  std::string text;
  bool report = false;   // this side records the failure (see shared_outcome)
  bool one_hca = false;  // both ends on one HCA: its bytes never reach a wire
  nlohmann::json params = nlohmann::json::object();
};

Setup failed(ProbeStatus status, std::string text, bool report) {
  Setup s;
  s.status = status;
  s.text = std::move(text);
  s.report = report;
  return s;
}

ProbeStatus status_of(SetupState state) {
  return state == SetupState::skipped ? ProbeStatus::skipped : ProbeStatus::error;
}

// What this side tells the peer about a failure of its own: CallErrors name
// host and rank already, other errors get them here.
std::string local_text(const PairContext& ctx, const std::exception& e) {
  if (dynamic_cast<const CallError*>(&e)) return e.what();
  return self_name(ctx) + ": " + e.what();
}

// Once both sides know both outcomes, the initiator alone reports a failure
// (naming whichever side failed); when the swap itself failed, each side
// reports what it knows.
Setup shared_outcome(const PairContext& ctx, bool mine_ok, ProbeStatus mine_status, const std::string& mine_text,
                     bool peer_ok, ProbeStatus peer_status, const std::string& peer_text) {
  std::string text;
  ProbeStatus status = ProbeStatus::skipped;
  if (!mine_ok) {
    text = mine_text;
    if (mine_status != ProbeStatus::skipped) status = mine_status;
  }
  if (!peer_ok) {
    text += (text.empty() ? "" : "; ") + peer_text;
    if (peer_status != ProbeStatus::skipped) status = peer_status;
  }
  return failed(status, text, ctx.initiator);
}

// Opens the local side, swaps connection data, brings the QP to RTS and meets
// the peer once more, so neither side writes before the other can receive.
// `injected`: this side fails as a fault of ibgpu's own would, before it touches the device
// (--test-verbs-error-rank; its port writing to itself still passes).
Setup establish(const PairContext& ctx, const EndpointOptions& options, int connect_tag, int ready_tag, bool injected) {
  Setup s;
  ConnectionInfo mine;
  std::optional<std::string> usage;
  try {
    if (injected) throw std::runtime_error("setup failed, injected by --test-verbs-error-rank (not the device)");
    s.endpoint = std::make_unique<Endpoint>(options);
    mine = s.endpoint->local_info();
  } catch (const UsageError& e) {
    mine.state = SetupState::usage;
    mine.message = local_text(ctx, e);
    usage = e.what();
  } catch (const VerbsUnavailable& e) {
    mine.state = SetupState::skipped;
    mine.message = local_text(ctx, e);
  } catch (const GpuUnavailable& e) {
    mine.state = SetupState::skipped;
    mine.message = local_text(ctx, e);
  } catch (const std::exception& e) {
    mine.state = SetupState::failed;
    mine.message = local_text(ctx, e);
  }
  const auto reply = swap_images(ctx, connect_tag, encode(mine), ctx.timeout);
  if (usage) throw UsageError(*usage);  // the peer has been told; exit 64 on this rank
  const bool mine_ok = mine.state == SetupState::ready;
  const auto peer = reply ? decode_connection(*reply) : std::nullopt;
  if (!peer) {
    if (!mine_ok) return failed(status_of(mine.state), mine.message, true);
    if (!reply) return failed(ProbeStatus::timeout, silence_text(ctx, "connection data", ctx.timeout), true);
    return failed(ProbeStatus::error, "unreadable connection data from " + peer_name(ctx), true);
  }
  const bool peer_ok = peer->state == SetupState::ready;
  if (!mine_ok || !peer_ok)
    return shared_outcome(ctx, mine_ok, status_of(mine.state), mine.message, peer_ok, status_of(peer->state),
                          peer->message);
  if (const auto why = incompatibility(mine, *peer); !why.empty())
    return failed(ProbeStatus::error, why + " (" + self_name(ctx) + " with " + peer_name(ctx) + ")", ctx.initiator);

  Notice ready;
  try {
    s.endpoint->connect(*peer);
  } catch (const std::exception& e) {
    ready = Notice{NoticeCode::error, local_text(ctx, e)};
  }
  const auto answer = swap_images(ctx, ready_tag, encode(ready), ctx.timeout);
  const auto notice = answer ? decode_notice(*answer) : std::nullopt;
  const bool ready_ok = ready.code == NoticeCode::ok;
  if (!notice) {
    if (!ready_ok) return failed(ProbeStatus::error, ready.text, true);
    if (!answer) return failed(ProbeStatus::timeout, silence_text(ctx, "readiness", ctx.timeout), true);
    return failed(ProbeStatus::error, "unreadable readiness notice from " + peer_name(ctx), true);
  }
  const bool peer_ready = notice->code == NoticeCode::ok;
  if (!ready_ok || !peer_ready)
    return shared_outcome(ctx, ready_ok, ProbeStatus::error, ready.text, peer_ready, ProbeStatus::error, notice->text);
  s.params = s.endpoint->describe();
  s.params["transport"] = "verbs";
  s.one_hca = mine.node_guid != 0 && mine.node_guid == peer->node_guid;
  return s;
}

// MPI failing underneath (not a silent peer: an error code) is this side's error.
Setup establish_or_fail(const PairContext& ctx, const NetSettings& settings, const EndpointOptions& options,
                        int connect_tag, int ready_tag) {
  try {
    return establish(ctx, options, connect_tag, ready_tag, ctx.self == settings.test_verbs_error_rank);
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    return failed(ProbeStatus::error, e.what(), true);
  }
}

ProbeResult base_result(const char* id, const PairContext& ctx, std::size_t size, const nlohmann::json& params) {
  ProbeResult r = pair_result(id, ctx, size);
  r.params.update(params);
  r.params["transport"] = "verbs";
  return r;
}

ProbeResult failure_result(const char* id, const PairContext& ctx, std::size_t size, ProbeStatus status,
                           const std::string& text, const nlohmann::json& params) {
  ProbeResult r = base_result(id, ctx, size, params);
  r.status = status;
  if (status == ProbeStatus::skipped)
    r.reason = text;
  else
    r.error = text;
  return r;
}

std::vector<ProbeResult> setup_results(const Setup& s, const PairContext& ctx, std::initializer_list<const char*> ids,
                                       const std::vector<std::size_t>& sizes) {
  std::vector<ProbeResult> results;
  if (!s.report) return results;
  for (const char* id : ids)
    for (const std::size_t size : sizes) results.push_back(failure_result(id, ctx, size, s.status, s.text, s.params));
  return results;
}

// The bytes a bandwidth result says its writes moved, warmup included.
std::uint64_t bytes_written(const ProbeResult& r, std::size_t size) {
  const auto count = [&](const char* key) { return r.params.contains(key) ? r.params[key].get<std::uint64_t>() : 0; };
  return static_cast<std::uint64_t>(size) * (count("iters") + count("warmup"));
}

std::size_t largest(const std::vector<std::size_t>& sizes, std::size_t at_least) {
  std::size_t out = at_least;
  for (const std::size_t size : sizes) out = std::max(out, size);
  return out;
}

}  // namespace

std::vector<ProbeResult> VerbsTransport::bandwidth(const PairContext& ctx, const NetSettings& settings) {
  if (settings.bw_sizes.empty()) return {};  // both sides see the same plan: neither connects
  EndpointOptions options;
  options.device = ctx.self_device;
  options.gid_index = settings.gid_index;
  options.mem = settings.mem;
  // Small messages cycle through 64 KiB of slots, so consecutive writes do not hit the same lines.
  options.region_bytes = largest(settings.bw_sizes, 64 * 1024);
  options.send_depth = std::max(1, settings.tx_depth);
  options.recv_depth = 1;
  // Read before the connection is ready: no write can leave before both ends have met again.
  const std::vector<PortBytes> bytes_before = read_port_bytes(sysfs_);
  Setup setup = establish_or_fail(ctx, settings, options, kBwConnect, kBwReady);
  if (!setup.endpoint) return setup_results(setup, ctx, {kWriteBwId}, settings.bw_sizes);

  std::vector<ProbeResult> results;
  std::uint64_t written = 0;  // by the initiator, as it counts them and tells the responder
  // A responder that gives up says so, and the initiator (listening once
  // completions have stopped for a while) ends its run at once.
  AbortWatch abort(ctx, kBwAbort);
  for (const std::size_t size : settings.bw_sizes) {
    ProbeResult r = base_result(kWriteBwId, ctx, size, setup.params);
    Notice mine;
    if (ctx.initiator) {
      try {
        r = measure_write_bw(*setup.endpoint, ctx, settings, size, abort);
      } catch (const PeerFailed& e) {
        results.push_back(failure_result(kWriteBwId, ctx, size, ProbeStatus::error, e.what(), setup.params));
        break;  // the responder has left: no end-of-run swap to wait for
      } catch (const WaitExpired& e) {
        r = failure_result(kWriteBwId, ctx, size, ProbeStatus::timeout, e.what(), setup.params);
      } catch (const std::exception& e) {
        r = failure_result(kWriteBwId, ctx, size, ProbeStatus::error, e.what(), setup.params);
      }
      if (r.status != ProbeStatus::ok)
        mine = Notice{r.status == ProbeStatus::timeout ? NoticeCode::timeout : NoticeCode::error, r.error.value_or("")};
      else
        mine.bytes = bytes_written(r, size);
    }
    // The responder's part of the run is its HCA's; it just waits, bounded, for
    // the initiator to say the run ended (the initiator's run is bounded by
    // timeout, so twice that plus slack is never too short). It waits idle,
    // as perftest's server does (blocked in a socket read): spinning in MPI
    // would take a core from whatever else runs there, Soft-RoCE's packet
    // processing above all, where the "HCA" is the CPU.
    const Seconds patience = ctx.initiator ? ctx.timeout : 2 * ctx.timeout + Seconds(5);
    const auto nap = ctx.initiator ? std::chrono::microseconds{0} : kResponderNap;
    std::optional<WireBytes> reply;
    try {
      reply = swap_images(ctx, kBwDone, encode(mine), patience, nap);
      if (!reply && r.status == ProbeStatus::ok) {
        r.status = ProbeStatus::timeout;
        r.error = silence_text(ctx, "end-of-run message", patience) +
                  (r.metrics.empty() ? "" : " (measured, but the peer did not confirm the end of the run)");
      }
    } catch (const std::exception& e) {  // MPI itself failed
      if (r.status == ProbeStatus::ok) {
        r.status = ProbeStatus::error;
        r.error = e.what();
      }
    }
    if (!reply) {
      if (!ctx.initiator) abort.notify(r.error.value_or("the responder stopped"));
      results.push_back(std::move(r));
      break;
    }
    const auto theirs = decode_notice(*reply);
    written += ctx.initiator ? mine.bytes : theirs ? theirs->bytes : 0;
    if (ctx.initiator) {
      const bool ok = r.status == ProbeStatus::ok;
      results.push_back(std::move(r));
      if (!ok) break;
    } else if (!theirs || theirs->code != NoticeCode::ok) {
      break;  // the initiator reports it
    }
  }
  if (written > 0 && !setup.one_hca) {
    const RailBytesTarget target{
        ctx.self_host, ctx.self,      setup.endpoint->name(), ctx.initiator ? RailSide::writer : RailSide::reader,
        written,       peer_name(ctx)};
    results.push_back(rail_bytes_result(target, bytes_before, read_port_bytes(sysfs_)));
  }
  return results;
}

std::vector<ProbeResult> VerbsTransport::latency(const PairContext& ctx, const NetSettings& settings) {
  constexpr int kPrepostedReceives = 16;
  if (settings.lat_sizes.empty()) return {};
  EndpointOptions options;
  options.device = ctx.self_device;
  options.gid_index = settings.gid_index;
  options.mem = BufferMemory::host;
  options.region_bytes = largest(settings.lat_sizes, 64);
  options.send_depth = 16;
  options.recv_depth = kPrepostedReceives;
  options.max_inline = 220;  // perftest's default for latency
  Setup setup = establish_or_fail(ctx, settings, options, kLatConnect, kLatReady);
  if (!setup.endpoint) return setup_results(setup, ctx, {kWriteLatId, kSendLatId}, settings.lat_sizes);
  Endpoint& ep = *setup.endpoint;

  std::vector<ProbeResult> results;
  AbortWatch abort(ctx, kLatAbort);
  // A side that gives up tells the peer on both channels it may be listening
  // on: the abort tag (while it spins) and the end-of-size swap.
  auto give_up = [&](const std::string& text) {
    abort.notify(text);
    send_image(ctx, kLatEnd, encode(Notice{NoticeCode::error, text}));
  };
  bool stopped = false;
  auto run_sizes = [&](const char* id, auto measure) {
    for (const std::size_t size : settings.lat_sizes) {
      if (stopped) return;
      try {
        ProbeResult r = measure(size);
        const auto reply = swap_images(ctx, kLatEnd, encode(Notice{}), ctx.timeout);
        if (!reply) throw WaitExpired(silence_text(ctx, "end-of-run message", ctx.timeout));
        const auto notice = decode_notice(*reply);
        if (!notice || notice->code != NoticeCode::ok)
          throw PeerFailed(peer_name(ctx) + " stopped: " + (notice ? notice->text : std::string("unreadable notice")));
        if (ctx.initiator) results.push_back(std::move(r));
      } catch (const PeerFailed& e) {
        stopped = true;
        if (ctx.initiator) results.push_back(failure_result(id, ctx, size, ProbeStatus::error, e.what(), setup.params));
      } catch (const AnnouncedFailure& e) {
        stopped = true;
        results.push_back(failure_result(id, ctx, size, ProbeStatus::error, e.what(), setup.params));
      } catch (const WaitExpired& e) {
        stopped = true;
        give_up(e.what());
        results.push_back(failure_result(id, ctx, size, ProbeStatus::timeout, e.what(), setup.params));
      } catch (const std::exception& e) {
        stopped = true;
        give_up(e.what());
        results.push_back(failure_result(id, ctx, size, ProbeStatus::error, e.what(), setup.params));
      }
    }
  };
  run_sizes(kWriteLatId, [&](std::size_t size) { return measure_write_lat(ep, ctx, settings, size, abort); });
  // Writes never consume receives; sends do. They are posted before the first
  // send_lat swap, so before the peer can send; a failure here is told to the
  // peer in that swap, where it is listening.
  std::string prepost_problem;
  try {
    for (int i = 0; i < kPrepostedReceives && !stopped; ++i) ep.post_recv(kRecvBit);
  } catch (const std::exception& e) {
    prepost_problem = e.what();
  }
  run_sizes(kSendLatId,
            [&](std::size_t size) { return measure_send_lat(ep, ctx, settings, size, abort, prepost_problem); });
  return results;
}

}  // namespace ibgpu
