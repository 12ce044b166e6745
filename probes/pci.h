#pragma once
// PCI functions as sysfs shows them, without any driver: the NVIDIA GPUs on
// the bus and the PCIe link of any function.
#include <optional>
#include <string>
#include <vector>

#include "core/inventory.h"
#include "probes/sysfs.h"

namespace ibgpu {

// "32.0 GT/s PCIe" -> 32.0; "2.5 GT/s" -> 2.5; "Unknown" or junk -> nullopt.
std::optional<double> parse_link_speed(const std::string& text);

// The link of the PCI function at `dir` (e.g. bus/pci/devices/0000:1b:00.0).
PciLink read_pci_link(const Sysfs& sysfs, const std::string& dir);

// Every NVIDIA GPU under bus/pci/devices: vendor 0x10de with class display
// VGA (0x0300) or 3D controller (0x0302), in bus order. Their audio and
// USB functions and NVSwitches (class 0x0680) are not GPUs.
std::vector<PciGpu> read_pci_gpus(const Sysfs& sysfs);

}  // namespace ibgpu
