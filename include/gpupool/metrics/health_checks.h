// Named health checks and the responses kube-apiserver and controller-runtime
// give for them on /healthz, /readyz and /livez:
//
//   all pass, plain      200  "ok"
//   all pass, ?verbose   200  "[+]ping ok\n[+]informers ok\nhealthz check passed\n"
//   any fails            500  "[+]ping ok\n[-]informers failed: reason withheld\n"
//                             "healthz check failed\n"   (always verbose)
//   ?exclude=<name>      that check is skipped: "[+]<name> excluded: ok"; a
//                        name matching no check gets a "warn: ..." line
//   <path>/<name>        runs that check alone: 200 "ok", or 500
//                        "internal server error: <reason>"
//
// As kube does, the aggregate withholds reasons (they go to the log, as a
// warning naming the check); only a single check's path shows its reason.
// With no checks added, a "ping" check that always passes stands in.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpupool::metrics {

// std::nullopt when fine, else why not. Runs on the HTTP server's threads:
// thread-safe, quick. An exception counts as a failure with its message.
using HealthCheck = std::function<std::optional<std::string>()>;

struct HealthReport {
  int status = 200;  // 200 or 500
  std::string body;
};

class HealthChecks {
 public:
  // `kind` names the endpoint in the output: "healthz", "readyz" or "livez".
  explicit HealthChecks(std::string kind);
  HealthChecks(const HealthChecks&) = delete;
  HealthChecks& operator=(const HealthChecks&) = delete;

  const std::string& kind() const { return kind_; }

  // Adds a check; thread-safe, also while serving. Throws
  // std::invalid_argument for an empty name, one with '/', or one already
  // added.
  void add(std::string name, HealthCheck check);

  // Runs every check not excluded, in the order added.
  HealthReport run(bool verbose, const std::vector<std::string>& exclude = {}) const;

  // Runs the check `name` alone; std::nullopt when there is none of that name.
  std::optional<HealthReport> run_one(std::string_view name) const;

 private:
  std::vector<std::pair<std::string, HealthCheck>> checks() const;

  std::string kind_;
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, HealthCheck>> checks_;
};

}  // namespace gpupool::metrics
