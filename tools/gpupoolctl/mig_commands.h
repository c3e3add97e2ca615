// `gpupoolctl mig plan` and `gpupoolctl mig layouts`.
#pragma once

#include <CLI/CLI.hpp>

namespace gpupool::ctl {

// Adds the `mig` command and its subcommands to `app`.
void add_mig_commands(CLI::App& app);

}  // namespace gpupool::ctl
