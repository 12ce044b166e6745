#include "health/history.h"

#include <algorithm>

#include "core/units.h"
#include "health/sequence.h"

namespace ibgpu {

namespace {

bool judged(const CheckRecord& r) { return r.state != HealthState::unknown; }

// "2026-12-05T11:02:00Z NET_BW_OUTLIER,LAT_OUTLIER"
std::string check_text(const CheckRecord& r) {
  std::string text = rfc3339(r.time);
  for (std::size_t i = 0; i < r.codes.size(); ++i) text += (i == 0 ? " " : ",") + r.codes[i];
  return text;
}

// The last `n` judged records of `past`, oldest first.
std::vector<const CheckRecord*> last_judged(std::span<const CheckRecord> past, int n) {
  std::vector<const CheckRecord*> out;
  for (auto it = past.rbegin(); it != past.rend() && static_cast<int>(out.size()) < n; ++it)
    if (judged(*it)) out.push_back(&*it);
  std::reverse(out.begin(), out.end());
  return out;
}

// The checks as a sequence of outcomes (health/sequence.h), `now` last.
Outcome outcome(const CheckRecord& r) {
  return !judged(r) ? Outcome::unknown : is_bad(r) ? Outcome::bad : Outcome::clean;
}
std::vector<Outcome> steps_of(const std::vector<const CheckRecord*>& records, const CheckRecord& now) {
  std::vector<Outcome> steps;
  steps.reserve(records.size() + 1);
  for (const CheckRecord* r : records) steps.push_back(outcome(*r));
  steps.push_back(outcome(now));
  return steps;
}

Reason history_reason(ReasonCode code, HealthState state, std::string message) {
  Reason r{code, std::move(message), "", std::nullopt, std::nullopt};
  r.state = state;
  return r;
}

// The node's latest return to the pool after a drain for a finding: the first admitted check after
// a drained bad one, with that drained check; none if it has not come back since its last drain.
struct Return {
  const CheckRecord* drained = nullptr;
  const CheckRecord* back = nullptr;
};
Return last_return(std::span<const CheckRecord> past) {
  const CheckRecord* later = nullptr;  // the judged check after the one looked at
  for (auto it = past.rbegin(); it != past.rend(); ++it) {
    if (!judged(*it)) continue;
    if (!later && it->action == Action::drain) return {};  // drained still: it has not come back
    if (it->action == Action::drain && is_bad(*it) && later && later->action != Action::drain)
      return Return{&*it, later};
    later = &*it;
  }
  return {};
}

}  // namespace

bool is_bad(const CheckRecord& r) { return r.state == HealthState::degraded || r.state == HealthState::failed; }

bool transient_codes(const std::vector<ReasonCode>& findings) {
  return !findings.empty() && std::all_of(findings.begin(), findings.end(), [](ReasonCode c) {
    const ReasonGroup g = info(c).group;
    return g == ReasonGroup::network_pair || g == ReasonGroup::allreduce;
  });
}

HistoryCall judge_history(std::span<const CheckRecord> past, const CheckRecord& now, bool transient_eligible,
                          const HistoryRules& rules) {
  if (!judged(now)) return {};
  // The window: the last `window` judged checks, this one included, read as a sequence
  // (health/sequence.h). A node bad through one long spell (drained, checked again and again
  // until its repair) was repaired, not flapping: it flaps when it came back between spells.
  const std::vector<const CheckRecord*> before = last_judged(past, rules.window - 1);
  const SequenceReading window = read_sequence(steps_of(before, now));
  if (window.bad >= rules.flapping_bad && window.spells >= 2) {
    std::string message = "bad in " + std::to_string(window.bad) + " of its last " + std::to_string(window.judged) +
                          " checks, in " + std::to_string(window.spells) + " spells ([history].flapping_bad " +
                          std::to_string(rules.flapping_bad) + " of " + std::to_string(rules.window) + "): ";
    std::string checks;
    for (const CheckRecord* r : before)
      if (is_bad(*r)) checks += (checks.empty() ? "" : "; ") + check_text(*r);
    if (is_bad(now)) checks += (checks.empty() ? "" : "; ") + std::string("this check");
    return {history_reason(ReasonCode::HISTORY_FLAPPING, HealthState::failed, message + checks), HealthState::failed};
  }
  if (!is_bad(now)) return {};
  if (rules.lemon_days > 0) {
    const Return r = last_return(past);
    const double held = static_cast<double>(now.time - (r.back ? r.back->time : 0));
    if (r.back && held >= 0 && held <= rules.lemon_days * 86400) {
      std::string message = "bad again " + duration_text(held) + " after it came back into the pool (" +
                            rfc3339(r.back->time) + ", within [history].lemon_days " + format_value(rules.lemon_days) +
                            "); drained before for " + check_text(*r.drained);
      return {history_reason(ReasonCode::HISTORY_LEMON, HealthState::failed, std::move(message)), HealthState::failed};
    }
  }
  // Seen once in the window, after transient_clean clean checks in a row (which may reach back
  // further than the window).
  if (rules.transient_clean > 0 && transient_eligible && window.seen_once()) {
    const SequenceReading recent = read_sequence(steps_of(last_judged(past, rules.transient_clean), now));
    if (recent.clean_before_last_bad >= rules.transient_clean) {
      std::string message = "the first bad check after " + std::to_string(std::max(recent.judged, window.judged) - 1) +
                            " without one: a transient of a measurement between hosts, admitted degraded with a "
                            "watch (another bad check within " +
                            std::to_string(rules.window) + " counts towards flapping)";
      return {history_reason(ReasonCode::HISTORY_TRANSIENT, HealthState::degraded, std::move(message)),
              HealthState::degraded};
    }
  }
  return {};
}

NodeStory story_of(std::span<const CheckRecord> records, const HistoryRules& rules) {
  NodeStory s;
  const CheckRecord* previous = nullptr;
  std::optional<std::int64_t> first_failure, last_failure;
  for (const CheckRecord& r : records) {
    if (!judged(r)) continue;
    ++s.checks;
    if (is_bad(r)) {
      ++s.bad;
      if (!previous || !is_bad(*previous)) {
        ++s.failures;
        if (!first_failure) first_failure = r.time;
        last_failure = r.time;
      }
    }
    previous = &r;
  }
  if (s.failures >= 2)
    s.mean_time_between_failures_s = static_cast<double>(*last_failure - *first_failure) / (s.failures - 1);
  if (!records.empty()) {
    const CheckRecord& last = records.back();
    s.last = judge_history(records.first(records.size() - 1), last, false, rules);
  }
  return s;
}

}  // namespace ibgpu
