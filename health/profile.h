#pragma once
// What a node of a given kind should have and reach. The `generic` profile
// expects nothing in particular: whatever exists is checked, and what cannot
// be checked is unknown.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ibgpu {

struct Profile {
  std::string name = "generic";
  std::string description = "no hardware expectations: checks what is present, unknown for what cannot run";
  std::optional<int> expect_gpus;          // per host; 0 declares a CPU-only node
  std::optional<int> expect_active_ports;  // per host; 0 declares a node without RDMA
};

Profile generic_profile();
nlohmann::json to_json(const Profile& profile);

}  // namespace ibgpu
