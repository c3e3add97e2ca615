// `gpupoolctl status` (`kubectl gpupool status`): GPUPools, GPUNodes and
// TenantQuotas as tables, with the reason for anything waiting or failed
// (explain/status_tables.h). TenantQuotas of the namespace (-n, else the
// context's) or of all (-A).
#pragma once

#include <CLI/CLI.hpp>

namespace gpupool::ctl {

void add_status_command(CLI::App& app);

}  // namespace gpupool::ctl
