// `ibgpu probe list`: the probe catalogue, and whether each kind can run on
// this host (and if not why), without MPI and without measuring.
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.h"
#include "probes/catalogue.h"
#include "reports/atomic_file.h"
#include "reports/text_table.h"

namespace ibgpu {

namespace {

// A kind of the catalogue, and why it cannot run here (nullopt: it can).
struct KindHere {
  const ProbeKind& kind;
  std::optional<std::string> why_not;
};

std::vector<KindHere> survey(const Sysfs& sysfs) {
  std::vector<KindHere> kinds;
  for (const ProbeKind& kind : probe_catalogue()) kinds.push_back({kind, why_not_here(kind, sysfs)});
  return kinds;
}

nlohmann::json catalogue_json(const std::vector<KindHere>& kinds) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [kind, why_not] : kinds) {
    nlohmann::json metrics = nlohmann::json::array();
    for (const auto name : kind.metrics) metrics.push_back(name);
    out.push_back({{"id", kind.id},
                   {"description", kind.description},
                   {"stage", to_string(kind.stage)},
                   {"subject", to_string(kind.subject)},
                   {"judged_by", to_string(kind.quantity)},
                   {"transport", to_string(kind.transport)},
                   {"metrics", metrics},
                   {"runnable", !why_not},
                   {"why_not", why_not ? nlohmann::json(*why_not) : nlohmann::json(nullptr)}});
  }
  return {{"probe_catalogue_version", 1}, {"kinds", out}};
}

void print_table(const std::vector<KindHere>& kinds, std::ostream& out) {
  TextTable table({{"probe"}, {"stage"}, {"for"}, {"transport"}, {"here"}});
  for (const auto& [kind, why_not] : kinds) {
    table.cell(std::string(kind.id));
    table.cell(to_string(kind.stage));
    table.cell(to_string(kind.subject));
    table.cell(to_string(kind.transport));
    table.cell(why_not ? "no: " + *why_not : std::string("runs"));
    table.end_row();
  }
  out << "Probe catalogue (what each kind records: ibgpu probe list --json -)\n";
  table.print(out, "  ");
}

}  // namespace

int run_probe_list(const ProbeListOptions& options) {
  const auto kinds = survey(Sysfs(options.common.sysfs_root));
  const nlohmann::json doc = catalogue_json(kinds);
  if (options.common.json_path == "-") {
    std::cout << doc.dump(2) << '\n';
    return 0;
  }
  print_table(kinds, std::cout);
  if (!options.common.json_path.empty())
    write_atomically(options.common.json_path, [&](std::ostream& out) { out << doc.dump(2) << '\n'; });
  return 0;
}

}  // namespace ibgpu
