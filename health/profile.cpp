#include "health/profile.h"

namespace ibgpu {

Profile generic_profile() { return Profile{}; }

nlohmann::json to_json(const Profile& p) {
  auto opt = [](const std::optional<int>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"name", p.name},
          {"description", p.description},
          {"expect_gpus", opt(p.expect_gpus)},
          {"expect_active_ports", opt(p.expect_active_ports)}};
}

}  // namespace ibgpu
