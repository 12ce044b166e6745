// `ibgpu probe list`: the probe catalogue, and whether each kind can run on
// this host (and if not why), without MPI and without measuring.
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "app/commands.h"
#include "probes/catalogue.h"
#include "reports/atomic_file.h"
#include "reports/text_table.h"

namespace ibgpu {

namespace {

nlohmann::json catalogue_json(const Sysfs& sysfs) {
  nlohmann::json kinds = nlohmann::json::array();
  for (const ProbeKind& kind : probe_catalogue()) {
    const auto why_not = why_not_here(kind, sysfs);
    nlohmann::json metrics = nlohmann::json::array();
    for (const auto name : kind.metrics) metrics.push_back(name);
    kinds.push_back({{"id", kind.id},
                     {"description", kind.description},
                     {"stage", to_string(kind.stage)},
                     {"subject", to_string(kind.subject)},
                     {"judged_by", to_string(kind.quantity)},
                     {"transport", to_string(kind.transport)},
                     {"metrics", metrics},
                     {"runnable", !why_not},
                     {"why_not", why_not ? nlohmann::json(*why_not) : nlohmann::json(nullptr)}});
  }
  return {{"probe_catalogue_version", 1}, {"kinds", kinds}};
}

void print_table(const nlohmann::json& doc, std::ostream& out) {
  TextTable table({{"probe"}, {"stage"}, {"for"}, {"transport"}, {"here"}});
  for (const auto& kind : doc.at("kinds")) {
    table.cell(kind.at("id").get<std::string>());
    table.cell(kind.at("stage").get<std::string>());
    table.cell(kind.at("subject").get<std::string>());
    table.cell(kind.at("transport").get<std::string>());
    table.cell(kind.at("runnable").get<bool>() ? std::string("runs") : "no: " + kind.at("why_not").get<std::string>());
    table.end_row();
  }
  out << "Probe catalogue (what each kind records: ibgpu probe list --json -)\n";
  table.print(out, "  ");
}

}  // namespace

int run_probe_list(const ProbeListOptions& options) {
  const nlohmann::json doc = catalogue_json(Sysfs(options.common.sysfs_root));
  if (options.common.json_path == "-") {
    std::cout << doc.dump(2) << '\n';
    return 0;
  }
  print_table(doc, std::cout);
  if (!options.common.json_path.empty())
    write_atomically(options.common.json_path, [&](std::ostream& out) { out << doc.dump(2) << '\n'; });
  return 0;
}

}  // namespace ibgpu
