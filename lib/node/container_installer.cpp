// The container installer: a driver-installer pod on this node
// (installer_pod.h), created, waited for and cleaned up. Every step reads the
// pod from the API server, so a restarted agent resumes where it was.
#include <spdlog/spdlog.h>

#include "gpupool/api/installer_parameters.h"
#include "gpupool/common/stoppable_sleep.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/resource.h"
#include "gpupool/node/driver_installer.h"
#include "gpupool/node/installer_pod.h"

namespace gpupool::node {
namespace {

using Clock = std::chrono::steady_clock;

class ContainerInstaller : public DriverInstaller {
 public:
  ContainerInstaller(kube::Client& c, ContainerInstallerOptions o) : client_(c), options_(std::move(o)) {}

  void install(const api::DriverSpec& driver, std::stop_token stop) override {
    api::FieldErrors problems;
    InstallerPodInput in;
    in.parameters = api::read_installer_parameters(driver.installer, api::FieldPath("spec.driver.installer"), problems);
    if (!problems.empty()) throw InstallError("InvalidParameters", api::format_field_errors(problems));
    in.node_name = options_.node_name;
    in.namespace_ = options_.namespace_;
    in.driver = driver;
    in.node_uid = node_uid();

    const std::string name = installer_pod_name(options_.node_name);
    const std::string where = "driver-installer pod " + options_.namespace_ + "/" + name;
    const auto ref = kube::ResourceRef{kube::core::pods(), options_.namespace_, name, ""};
    const auto deadline = Clock::now() + in.parameters.timeout;
    std::string created_uid;  // the pod this call created: its failure is final
    // When the pod was first seen unable to start; epoch: it is not stuck.
    // (A std::optional here trips GCC 12's -Wmaybe-uninitialized at -O2.)
    Clock::time_point stuck_since{};

    while (true) {
      if (stop.stop_requested()) {
        throw InstallError("Cancelled", "driver install cancelled (the agent is stopping); " + where + " is left running");
      }
      std::optional<rapidjson::Document> pod;
      try {
        pod = client_.get(ref);
      } catch (const kube::ApiError& e) {
        if (!e.is_not_found()) throw;
      }
      if (!pod) {
        create(in, where, created_uid);
        continue;
      }
      const std::string uid = kube::string_at(*pod, {"metadata", "uid"});
      const InstallerPodState state = read_installer_pod(*pod);
      const bool ours = state.version == driver.version && state.image == driver.installer.image;
      if (!ours || (state.phase == InstallerPodPhase::failed && uid != created_uid)) {
        // Another install's pod, or an earlier attempt that failed: replace it.
        spdlog::info("{}: replacing (driver {}, image {}, {})", where, state.version, state.image,
                     state.phase == InstallerPodPhase::failed ? "failed" : "not this install");
        remove_and_wait(ref, uid, stop);
        continue;
      }
      if (state.phase == InstallerPodPhase::succeeded) {
        spdlog::info("{}: driver {} installed", where, driver.version);
        try {
          client_.remove(ref, kube::delete_options(uid));
        } catch (const kube::ApiError& e) {
          if (!e.is_not_found() && !e.is_conflict()) throw;
        }
        return;
      }
      if (state.phase == InstallerPodPhase::failed) {
        throw InstallError("InstallFailed", where + " failed: " + state.detail + " (left for `kubectl logs -n " +
                                                options_.namespace_ + " " + name + "`)");
      }
      if (!state.detail.empty()) {
        if (stuck_since == Clock::time_point{}) stuck_since = Clock::now();
        if (Clock::now() - stuck_since >= options_.start_grace) {
          throw InstallError("InstallFailed", where + " cannot start: " + state.detail);
        }
      } else {
        stuck_since = Clock::time_point{};
      }
      if (Clock::now() >= deadline) {
        throw InstallError("InstallTimeout", where + " still running after " +
                                                 std::to_string(in.parameters.timeout.count()) +
                                                 "s (parameters.timeoutSeconds); it is left running");
      }
      common::sleep_for(options_.poll, stop);
    }
  }

 private:
  std::string node_uid() {
    try {
      return kube::string_at(client_.get({kube::core::nodes(), "", options_.node_name, ""}), {"metadata", "uid"});
    } catch (const kube::ApiError& e) {
      if (e.is_not_found()) return "";
      throw;
    }
  }

  void create(const InstallerPodInput& in, const std::string& where, std::string& created_uid) {
    try {
      auto answer = client_.create(kube::ResourceRef{kube::core::pods(), in.namespace_, "", ""}, installer_pod_manifest(in));
      created_uid = kube::string_at(answer, {"metadata", "uid"});
      spdlog::info("{}: created (image {}, driver {})", where, in.driver.installer.image, in.driver.version);
    } catch (const kube::ApiError& e) {
      if (!e.is_already_exists()) throw;  // someone else's copy: read it next round
    }
  }

  void remove_and_wait(const kube::ResourceRef& ref, const std::string& uid, std::stop_token stop) {
    try {
      client_.remove(ref, kube::delete_options(uid, 0));
    } catch (const kube::ApiError& e) {
      if (!e.is_not_found() && !e.is_conflict()) throw;
    }
    while (common::sleep_for(std::chrono::milliseconds(200), stop)) {
      try {
        auto pod = client_.get(ref);
        if (kube::string_at(pod, {"metadata", "uid"}) != uid) return;
      } catch (const kube::ApiError& e) {
        if (e.is_not_found()) return;
        throw;
      }
    }
  }

  kube::Client& client_;
  ContainerInstallerOptions options_;
};

}  // namespace

std::unique_ptr<DriverInstaller> make_container_installer(kube::Client& client, ContainerInstallerOptions options) {
  return std::make_unique<ContainerInstaller>(client, std::move(options));
}

}  // namespace gpupool::node
