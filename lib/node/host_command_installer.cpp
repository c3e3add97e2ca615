// The package and runfile installers: parameters.command through /bin/sh,
// in the host's namespaces when a prefix (nsenter) is configured.
#include <spdlog/spdlog.h>

#include "gpupool/api/enum_names.h"
#include "gpupool/api/installer_parameters.h"
#include "gpupool/common/subprocess.h"
#include "gpupool/node/driver_installer.h"

namespace gpupool::node {
namespace {

constexpr std::size_t kOutputTail = 4096;

std::string trimmed_tail(const std::string& out, const std::string& err) {
  std::string text = err.empty() ? out : err;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

class HostCommandInstaller : public DriverInstaller {
 public:
  explicit HostCommandInstaller(HostCommandOptions o) : options_(std::move(o)) {}

  void install(const api::DriverSpec& driver, std::stop_token stop) override {
    api::FieldErrors problems;
    const auto params = api::read_installer_parameters(driver.installer, api::FieldPath("spec.driver.installer"), problems);
    if (!problems.empty()) throw InstallError("InvalidParameters", api::format_field_errors(problems));
    const std::string kind(api::to_string(driver.installer.kind));

    std::vector<std::string> argv = options_.prefix;
    for (const auto& a : std::vector<std::string>{options_.shell, "-c", params.command, "gpupool-driver-install",
                                                  driver.version}) {
      argv.push_back(a);
    }
    const std::string program = argv.front();
    std::vector<std::string> env{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C",
                                 "DEBIAN_FRONTEND=noninteractive", "DRIVER_VERSION=" + driver.version};
    for (const auto& [k, v] : params.env) env.push_back(k + "=" + v);

    common::ProcessOptions po;
    po.timeout = params.timeout;
    po.max_output = kOutputTail;
    po.keep_tail = true;
    po.stop = stop;
    spdlog::info("installing driver {} ({} installer): {}", driver.version, kind, params.command);
    const auto r = common::run_process(program, argv, env, po);
    const std::string what = "driver " + driver.version + " (" + kind + " installer, parameters.command)";
    if (!r.started) throw InstallError("InstallFailed", what + ": " + program + " could not be started: " + r.start_error);
    if (r.cancelled) throw InstallError("Cancelled", what + ": cancelled (the agent is stopping); the command was killed");
    if (r.timed_out) {
      throw InstallError("InstallTimeout", what + ": still running after " + std::to_string(params.timeout.count()) +
                                               "s (parameters.timeoutSeconds); killed. Last output: " +
                                               trimmed_tail(r.out, r.err));
    }
    if (!r.exited || r.exit_code != 0) {
      const std::string how = r.exited ? "exit code " + std::to_string(r.exit_code) : "signal " + std::to_string(r.signal);
      throw InstallError("InstallFailed", what + " failed with " + how + ": " + trimmed_tail(r.out, r.err));
    }
  }

 private:
  HostCommandOptions options_;
};

}  // namespace

std::unique_ptr<DriverInstaller> make_host_command_installer(HostCommandOptions options) {
  return std::make_unique<HostCommandInstaller>(std::move(options));
}

}  // namespace gpupool::node
