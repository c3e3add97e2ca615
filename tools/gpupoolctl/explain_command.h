// `gpupoolctl explain KIND NAME` (`kubectl gpupool explain pool a100`,
// `explain node/kwok-0`, `explain tenantquota -n team-a q1`,
// `explain tq team-a/q1`): why the object is not progressing, in plain words,
// from what the controller and the agents wrote (explain/explain.h). Exit 0
// with the explanation, 1 when the object does not exist, 2 when the command
// could not run.
#pragma once

#include <CLI/CLI.hpp>

namespace gpupool::ctl {

void add_explain_command(CLI::App& app);

}  // namespace gpupool::ctl
