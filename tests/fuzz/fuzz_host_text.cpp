// libFuzzer: what ibgpu reads from the host it checks: sysfs port attributes (state, rate) and
// the kernel log; and the durations and size lists an operator types.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "app/text.h"
#include "core/units.h"
#include "probes/ib/ports.h"
#include "probes/kernel_log.h"
#include "reports/render_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)ibgpu::parse_coded_state(text);
  (void)ibgpu::parse_rate(text);
  (void)ibgpu::parse_kernel_log(text);
  (void)ibgpu::printable(text);
  try {
    (void)ibgpu::parse_duration(text);
  } catch (const std::invalid_argument&) {
  }
  try {
    (void)ibgpu::parse_sizes(text);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
