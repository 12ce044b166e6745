#include "core/waits.h"

#include <cstdio>

namespace ibgpu {

std::string wait_text(Seconds wait) {
  char text[40];
  std::snprintf(text, sizeof text, "%g s", wait.count());
  return text;
}

}  // namespace ibgpu
