#include "core/comparison.h"

namespace ibgpu {

const char* to_string(Change::Kind kind) {
  switch (kind) {
    case Change::Kind::state:
      return "state";
    case Change::Kind::appeared:
      return "new";
    case Change::Kind::vanished:
      return "vanished";
    case Change::Kind::metric:
      return "metric";
  }
  return "?";
}

}  // namespace ibgpu
