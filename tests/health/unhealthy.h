#pragma once
// What a judgement names: every entity not healthy, with its state ("hca_port node03/mlx5_1:1").
#include <map>
#include <string>

#include "health/judge.h"

namespace ibgpu::testing {

inline std::map<std::string, HealthState> unhealthy_entities(const Judgement& j) {
  std::map<std::string, HealthState> out;
  for (const auto& v : j.verdicts)
    if (v.state != HealthState::healthy) out[entity_text(v.entity)] = v.state;
  return out;
}

}  // namespace ibgpu::testing
