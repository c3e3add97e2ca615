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

class UnavailableInstaller : public DriverInstaller {
 public:
  void install(const api::DriverSpec& driver, std::stop_token) override {
    throw InstallError("InstallerNotAvailable", "installer kind " + std::string(api::to_string(driver.installer.kind)) +
                                                    " is not supported by this agent yet; install driver " +
                                                    driver.version + " by hand and use kind preinstalled");
  }
};

}  // namespace

std::unique_ptr<DriverInstaller> make_simulated_installer(backend::SimulatedBackend& backend) {
  return std::make_unique<SimulatedInstaller>(backend);
}

std::unique_ptr<DriverInstaller> make_unavailable_installer() { return std::make_unique<UnavailableInstaller>(); }

}  // namespace gpupool::node
