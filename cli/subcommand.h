#pragma once
// Each subcommand lives in its own file: it declares its options on a CLI11
// subcommand and returns the call into the library that runs it.
#include <CLI/CLI.hpp>

#include <functional>

#include "app/pipeline.h"
#include "cluster/world.h"

namespace ibgpu::cli {

struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int(MpiSession&)> run;
  CommonOptions* common = nullptr;  // for timeouts and error output
};

void add_common_options(CLI::App& sub, CommonOptions& options);

Subcommand add_inventory(CLI::App& parent);
Subcommand add_check(CLI::App& parent);

}  // namespace ibgpu::cli
