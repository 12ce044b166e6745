#include "core/report.h"

#include <algorithm>
#include <array>
#include <utility>

namespace ibgpu {

namespace {

constexpr std::array<std::pair<BurnInClass, const char*>, 7> kBurnInClasses{{
    {BurnInClass::healthy, "healthy"},
    {BurnInClass::bad_every_round, "bad_every_round"},
    {BurnInClass::flaky, "flaky"},
    {BurnInClass::seen_once, "seen_once"},
    {BurnInClass::degraded_every_round, "degraded_every_round"},
    {BurnInClass::some_rounds, "some_rounds"},
    {BurnInClass::drifting, "drifting"},
}};

}  // namespace

const char* to_string(BurnInClass c) {
  for (const auto& [value, name] : kBurnInClasses)
    if (value == c) return name;
  return "?";
}

std::optional<BurnInClass> burn_in_class_from_string(std::string_view text) {
  for (const auto& [value, name] : kBurnInClasses)
    if (text == name) return value;
  return std::nullopt;
}

std::optional<BurnInClass> burn_in_class(const BurnInEntity& e, const Verdict* v) {
  if (e.rounds_judged == 0) return std::nullopt;
  auto has = [&](ReasonCode code) { return has_reason(v, code); };
  if (has(ReasonCode::BURN_IN_FLAKY)) return BurnInClass::flaky;
  if (has(ReasonCode::BURN_IN_SEEN_ONCE)) return BurnInClass::seen_once;
  if (e.failed + e.unknown == e.rounds_judged) return BurnInClass::bad_every_round;
  if (e.degraded == e.rounds_judged) return BurnInClass::degraded_every_round;
  if (e.healthy < e.rounds_judged) return BurnInClass::some_rounds;
  return has(ReasonCode::BURN_IN_DRIFT) ? BurnInClass::drifting : BurnInClass::healthy;
}

}  // namespace ibgpu
