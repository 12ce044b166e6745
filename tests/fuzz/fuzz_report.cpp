// libFuzzer: a saved report or baseline as `ibgpu report` and `check --baseline` read it back.
// Any input must end in a value or an exception of the std::exception family, never a crash,
// an overflow of the stack or undefined behaviour.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "health/baseline.h"
#include "reports/json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json j = ibgpu::parse_json_text(text, "fuzz.json");
    try {
      const ibgpu::Report report = ibgpu::report_from_json(j);
      (void)nlohmann::json(report).dump();  // and written back, as a re-render would
    } catch (const std::exception&) {
    }
    try {
      (void)ibgpu::baseline_from_json(j);
    } catch (const std::exception&) {
    }
  } catch (const std::exception&) {
  }
  return 0;
}
