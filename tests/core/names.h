#pragma once
// Tests name reason codes and entity kinds as reports write them; an unknown name is a mistake
// in the test.
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/reason_codes.h"
#include "core/verdict.h"

namespace ibgpu::testing {

inline ReasonCode code(std::string_view name) {
  const auto c = reason_code_from_string(name);
  if (!c) throw std::invalid_argument("no reason code " + std::string(name));
  return *c;
}

inline EntityKind kind(std::string_view name) {
  const auto k = entity_kind_from_string(name);
  if (!k) throw std::invalid_argument("no entity kind " + std::string(name));
  return *k;
}

}  // namespace ibgpu::testing
