// `gpupoolctl validate -f FILE_OR_DIR...`: offline check of manifests.
#pragma once

#include <CLI/CLI.hpp>

namespace gpupool::ctl {

void add_validate_command(CLI::App& app);

}  // namespace gpupool::ctl
