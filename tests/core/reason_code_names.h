#pragma once
// Tests name reason codes as reports write them; an unknown name is a mistake in the test.
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/reason_codes.h"

namespace ibgpu::testing {

inline ReasonCode code(std::string_view name) {
  const auto c = reason_code_from_string(name);
  if (!c) throw std::invalid_argument("no reason code " + std::string(name));
  return *c;
}

}  // namespace ibgpu::testing
