// What the user typed to run us, for usage lines and the commands we suggest:
// "gpupoolctl", or "kubectl gpupool" when started as the kubectl plugin
// kubectl-gpupool (the link the build makes beside gpupoolctl).
#pragma once

#include <string>

namespace gpupool::ctl {

// From argv[0]: its file name, with a leading "kubectl-" read as kubectl
// reads plugin names ("kubectl-gpupool" -> "kubectl gpupool").
std::string program_name_from(const std::string& argv0);

// Set once by main; "gpupoolctl" until then.
void set_program_name(std::string name);
const std::string& program_name();

}  // namespace gpupool::ctl
