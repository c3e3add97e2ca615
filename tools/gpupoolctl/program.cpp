#include "program.h"

namespace gpupool::ctl {
namespace {

std::string& name_slot() {
  static std::string name = "gpupoolctl";
  return name;
}

}  // namespace

std::string program_name_from(const std::string& argv0) {
  const auto slash = argv0.find_last_of('/');
  std::string base = slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
  if (base.empty()) return "gpupoolctl";
  const std::string prefix = "kubectl-";
  if (base.rfind(prefix, 0) == 0 && base.size() > prefix.size()) {
    std::string plugin = base.substr(prefix.size());
    for (char& c : plugin) {
      if (c == '-') c = ' ';  // kubectl-foo-bar is `kubectl foo bar`
    }
    return "kubectl " + plugin;
  }
  return base;
}

void set_program_name(std::string name) { name_slot() = std::move(name); }
const std::string& program_name() { return name_slot(); }

}  // namespace gpupool::ctl
