#include "gpupool/node/driver_installer.h"

#include "gpupool/api/enum_names.h"
#include "gpupool/backend/simulated_backend.h"

namespace gpupool::node {
namespace {

class SimulatedInstaller : public DriverInstaller {
 public:
  explicit SimulatedInstaller(backend::SimulatedBackend& b) : backend_(b) {}
  void install(const api::DriverSpec& driver, std::stop_token stop) override {
    try {
      backend_.install_driver(driver.version, [&] { return stop.stop_requested(); });
    } catch (const backend::BackendError& e) {
      if (e.code() == "cancelled") throw InstallError("Cancelled", "driver install cancelled (the agent is stopping)");
      throw InstallError("InstallFailed", "driver " + driver.version + " (" +
                                              std::string(api::to_string(driver.installer.kind)) +
                                              " installer): " + e.what());
    }
  }

 private:
  backend::SimulatedBackend& backend_;
};

class ByKindInstaller : public DriverInstaller {
 public:
  ByKindInstaller(std::unique_ptr<DriverInstaller> container, std::unique_ptr<DriverInstaller> host)
      : container_(std::move(container)), host_(std::move(host)) {}
  void install(const api::DriverSpec& driver, std::stop_token stop) override {
    switch (driver.installer.kind) {
      case api::InstallerKind::container:
        return container_->install(driver, stop);
      case api::InstallerKind::package:
      case api::InstallerKind::runfile:
        return host_->install(driver, stop);
      case api::InstallerKind::preinstalled:
        break;
    }
    throw InstallError("InstallerNotAvailable", "installer kind preinstalled installs nothing; install driver " +
                                                    driver.version + " on the host by hand");
  }

 private:
  std::unique_ptr<DriverInstaller> container_;
  std::unique_ptr<DriverInstaller> host_;
};

}  // namespace

std::unique_ptr<DriverInstaller> make_simulated_installer(backend::SimulatedBackend& backend) {
  return std::make_unique<SimulatedInstaller>(backend);
}

std::unique_ptr<DriverInstaller> make_installer_by_kind(std::unique_ptr<DriverInstaller> container,
                                                        std::unique_ptr<DriverInstaller> host_command) {
  return std::make_unique<ByKindInstaller>(std::move(container), std::move(host_command));
}

}  // namespace gpupool::node
