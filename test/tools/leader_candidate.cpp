// leader-candidate: a leader election candidate for the integration tests.
//
// Runs runtime::LeaderElector on a Lease. While leading it appends lines
//   <identity> start <ms>
//   <identity> tick <ms>     (about every 100 ms)
//   <identity> stop <ms>     (when the leading token fired and the work ends)
// to the activity file, each with one O_APPEND write, where <ms> is
// CLOCK_MONOTONIC (std::chrono::steady_clock) in milliseconds: the same clock
// for every process on the machine, so lines of several candidates compare.
// SIGTERM/SIGINT: stop leading, release the lease, exit 0. Lost leadership:
// exit 2. Bad usage or configuration: exit 1.
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "gpupool/common/log.h"
#include "gpupool/common/shutdown.h"
#include "gpupool/kube/config.h"
#include "gpupool/runtime/leader_election.h"

namespace {

long long monotonic_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class ActivityLog {
 public:
  explicit ActivityLog(const std::string& path) : fd_(::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) {}
  ~ActivityLog() {
    if (fd_ >= 0) ::close(fd_);
  }
  ActivityLog(const ActivityLog&) = delete;
  ActivityLog& operator=(const ActivityLog&) = delete;
  bool ok() const { return fd_ >= 0; }
  void write(const std::string& identity, const char* what) {
    std::string line = identity + " " + what + " " + std::to_string(monotonic_ms()) + "\n";
    if (::write(fd_, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      spdlog::error("short write to the activity file");
    }
  }

 private:
  int fd_;
};

}  // namespace

int main(int argc, char** argv) {
  gpupool::ShutdownSignal shutdown;  // first: threads started later inherit the signal mask

  CLI::App app{"leader-candidate: a leader election candidate that logs its activity"};
  std::string kubeconfig, identity, activity_file, lease_namespace = "default", lease_name = "leader-candidate";
  int lease_ms = 15000, renew_ms = 10000, retry_ms = 2000;
  app.add_option("--kubeconfig", kubeconfig, "Path to a kubeconfig")->required();
  app.add_option("--identity", identity, "Candidate identity")->required();
  app.add_option("--activity-file", activity_file, "File to append activity lines to")->required();
  app.add_option("--lease-namespace", lease_namespace, "Namespace of the Lease");
  app.add_option("--lease-name", lease_name, "Name of the Lease");
  app.add_option("--lease-duration-ms", lease_ms, "Lease duration (whole seconds)");
  app.add_option("--renew-deadline-ms", renew_ms, "Renew deadline");
  app.add_option("--retry-period-ms", retry_ms, "Retry period");
  CLI11_PARSE(app, argc, argv);
  gpupool::log::init(gpupool::log::Format::Text, "info");

  ActivityLog activity(activity_file);
  if (!activity.ok()) {
    spdlog::error("cannot open {}", activity_file);
    return 1;
  }
  try {
    gpupool::kube::KubeconfigOptions opts;
    opts.path = kubeconfig;
    auto rest = gpupool::kube::load_kubeconfig(opts);

    gpupool::runtime::LeaderElectionConfig config;
    config.lease_namespace = lease_namespace;
    config.lease_name = lease_name;
    config.identity = identity;
    config.lease_duration = std::chrono::milliseconds(lease_ms);
    config.renew_deadline = std::chrono::milliseconds(renew_ms);
    config.retry_period = std::chrono::milliseconds(retry_ms);

    gpupool::runtime::LeaderCallbacks callbacks;
    callbacks.on_started_leading = [&](std::stop_token leading) {
      activity.write(identity, "start");
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock lock(m);
      while (!cv.wait_for(lock, leading, std::chrono::milliseconds(100), [] { return false; })) {
        if (leading.stop_requested()) break;
        activity.write(identity, "tick");
      }
      // Everything the leader did is over once this line is written.
      activity.write(identity, "stop");
    };
    callbacks.on_new_leader = [](const std::string& who) { spdlog::info("leader is now {}", who); };
    gpupool::runtime::LeaderElector elector(rest, config, callbacks);
    auto outcome = elector.run(shutdown.token());
    if (outcome == gpupool::runtime::ElectionOutcome::Lost) {
      spdlog::error("leadership lost");
      return 2;
    }
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
  spdlog::info("shutting down");
  return 0;
}
