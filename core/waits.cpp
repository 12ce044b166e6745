#include "core/waits.h"

#include <cstdio>

namespace ibgpu {

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

}  // namespace ibgpu
