// Installing a GPU driver, one implementation per way of doing it:
// - simulated: the simulated backend "installs" it itself (tests, the local
//   cluster; works on a bare Node object with no kubelet);
// - preinstalled: installs nothing (the plan reports a mismatch instead).
// The container (driver-installer pod) and package/runfile (host command)
// installers are to come; until then the agent reports such specs as
// Failed with reason InstallerNotAvailable.
#pragma once

#include <memory>
#include <stdexcept>
#include <stop_token>
#include <string>

#include "gpupool/api/common_types.h"

namespace gpupool::backend {
class SimulatedBackend;
}

namespace gpupool::node {

// An install that did not happen; `reason` is the operation's CamelCase reason.
class InstallError : public std::runtime_error {
 public:
  InstallError(std::string reason, const std::string& message) : std::runtime_error(message), reason_(std::move(reason)) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

class DriverInstaller {
 public:
  virtual ~DriverInstaller() = default;
  // Installs `driver.version` by `driver.installer`; returns once installed.
  // Throws InstallError (reason InstallFailed, InstallerNotAvailable, Cancelled).
  virtual void install(const api::DriverSpec& driver, std::stop_token stop) = 0;
};

std::unique_ptr<DriverInstaller> make_simulated_installer(backend::SimulatedBackend& backend);
// For real backends: the installer kinds not built yet fail clearly.
std::unique_ptr<DriverInstaller> make_unavailable_installer();

}  // namespace gpupool::node
