#include "gpupool/api/installer_parameters.h"

#include <charconv>

#include "gpupool/api/enum_names.h"

namespace gpupool::api {
namespace {

bool is_env_name(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

InstallerParameters read_installer_parameters(const DriverInstaller& installer, const FieldPath& path,
                                              FieldErrors& errors) {
  InstallerParameters out;
  const FieldPath params = path.field("parameters");
  const bool host_command = installer.kind == InstallerKind::package || installer.kind == InstallerKind::runfile;
  const std::string kind(to_string(installer.kind));
  for (const auto& [key, value] : installer.parameters) {
    const FieldPath at = params.key(key);
    if (key == "timeoutSeconds") {
      long long seconds = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
      if (ec != std::errc() || end != value.data() + value.size() || seconds < 1 || seconds > 86400) {
        errors.push_back({at.str(), "Invalid value: \"" + value + "\": must be a whole number of seconds from 1 to 86400"});
      } else {
        out.timeout = std::chrono::seconds(seconds);
      }
    } else if (key == "command") {
      if (!host_command) {
        errors.push_back({at.str(), "Forbidden: command may only be set when kind is package or runfile"});
      } else if (value.find_first_not_of(" \t\n") == std::string::npos) {
        errors.push_back({at.str(), "Required value: command must not be empty"});
      } else {
        out.command = value;
      }
    } else if (key == "DRIVER_VERSION") {
      errors.push_back({at.str(), "Forbidden: DRIVER_VERSION is set from spec.driver.version"});
    } else if (!is_env_name(key)) {
      errors.push_back({at.str(), "Invalid value: \"" + key +
                                      "\": a parameter other than timeoutSeconds and command becomes an environment "
                                      "variable, so its name must match [A-Za-z_][A-Za-z0-9_]*"});
    } else {
      out.env.emplace_back(key, value);
    }
  }
  if (host_command && out.command.empty() && !installer.parameters.contains("command")) {
    errors.push_back({params.key("command").str(), "Required value: kind " + kind +
                                                       " runs parameters.command on the host to install the driver"});
  }
  return out;
}

}  // namespace gpupool::api
