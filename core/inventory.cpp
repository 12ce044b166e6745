#include "core/inventory.h"

namespace ibgpu {

const char* to_string(PciProximity p) {
  switch (p) {
    case PciProximity::same_switch:
      return "same_switch";
    case PciProximity::same_numa:
      return "same_numa";
    case PciProximity::other:
      return "other";
  }
  return "other";
}

std::optional<PciProximity> pci_proximity_from_string(const std::string& text) {
  for (auto p : {PciProximity::same_switch, PciProximity::same_numa, PciProximity::other})
    if (text == to_string(p)) return p;
  return std::nullopt;
}

}  // namespace ibgpu
