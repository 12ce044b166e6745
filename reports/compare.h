#pragma once
// A comparison of two saved runs (health/compare.h) as a table and as JSON. Pure.
#include <nlohmann/json.hpp>
#include <ostream>

#include "core/comparison.h"

namespace ibgpu {

void print_comparison(const Comparison& c, std::ostream& out);
nlohmann::json to_json(const Comparison& c);

}  // namespace ibgpu
