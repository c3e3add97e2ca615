// Installing a GPU driver, one implementation per way of doing it:
// - simulated: the simulated backend "installs" it itself, whatever the
//   installer kind (tests, the local cluster; works on a bare Node object
//   with no kubelet);
// - container: a driver-installer pod (installer_pod.h) that the agent
//   creates on its node and waits for;
// - package, runfile: `parameters.command` run by /bin/sh in the host's
//   namespaces (through a prefix such as nsenter), the version as $1;
// - preinstalled: installs nothing (the plan reports a mismatch instead).
// What the parameters mean: api/installer_parameters.h.
#pragma once

#include <chrono>
#include <memory>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "gpupool/api/common_types.h"

namespace gpupool::backend {
class SimulatedBackend;
}
namespace gpupool::kube {
class Client;
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
  // Throws InstallError with reason InvalidParameters, InstallFailed,
  // InstallTimeout, InstallerNotAvailable or Cancelled (the agent is
  // stopping; an install already started on the node is left to finish and
  // a restarted agent picks it up).
  virtual void install(const api::DriverSpec& driver, std::stop_token stop) = 0;
};

std::unique_ptr<DriverInstaller> make_simulated_installer(backend::SimulatedBackend& backend);

struct ContainerInstallerOptions {
  std::string node_name;
  std::string namespace_;  // where the installer pod runs: the agent's namespace
  std::chrono::milliseconds poll{std::chrono::seconds(2)};
  // A container that cannot start (ErrImagePull, ImagePullBackOff,
  // CreateContainerConfigError, ...) for this long fails the install.
  std::chrono::milliseconds start_grace{std::chrono::minutes(5)};
};
// The pod is deleted once it succeeded; a failed pod is left for `kubectl
// logs` and replaced by the next attempt; a pod of another version or image
// is replaced; a running pod of this version (a restarted agent) is waited for.
std::unique_ptr<DriverInstaller> make_container_installer(kube::Client& client, ContainerInstallerOptions options);

struct HostCommandOptions {
  // Run before /bin/sh to enter the host's namespaces, e.g.
  // {"/usr/bin/nsenter", "--target", "1", "--mount", "--uts", "--ipc", "--net", "--pid", "--"};
  // empty: the agent's own namespaces.
  std::vector<std::string> prefix;
  std::string shell = "/bin/sh";
};
// The command's last 4 KiB of output is in the error when it fails.
std::unique_ptr<DriverInstaller> make_host_command_installer(HostCommandOptions options);

// Routes each install by its kind: container, package/runfile (host command);
// preinstalled fails with InstallerNotAvailable (nothing can be installed).
std::unique_ptr<DriverInstaller> make_installer_by_kind(std::unique_ptr<DriverInstaller> container,
                                                        std::unique_ptr<DriverInstaller> host_command);

}  // namespace gpupool::node
