#include "gpupool/metrics/health_checks.h"

#include <algorithm>
#include <exception>
#include <set>
#include <stdexcept>

#include <spdlog/spdlog.h>

namespace gpupool::metrics {
namespace {

std::optional<std::string> run_check(const HealthCheck& check) {
  try {
    return check();
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  } catch (...) {
    return std::string("threw a non-standard exception");
  }
}

}  // namespace

HealthChecks::HealthChecks(std::string kind) : kind_(std::move(kind)) {}

void HealthChecks::add(std::string name, HealthCheck check) {
  if (name.empty() || name.find('/') != std::string::npos) {
    throw std::invalid_argument(kind_ + ": invalid check name \"" + name + "\"");
  }
  std::lock_guard lock(mu_);
  for (const auto& [existing, unused] : checks_) {
    if (existing == name) throw std::invalid_argument(kind_ + ": a check named \"" + name + "\" is already added");
  }
  checks_.emplace_back(std::move(name), std::move(check));
}

std::vector<std::pair<std::string, HealthCheck>> HealthChecks::checks() const {
  std::lock_guard lock(mu_);
  if (checks_.empty()) return {{"ping", [] { return std::optional<std::string>(); }}};
  return checks_;
}

HealthReport HealthChecks::run(bool verbose, const std::vector<std::string>& exclude) const {
  std::set<std::string> unmatched(exclude.begin(), exclude.end());
  std::string lines;
  bool failed = false;
  for (const auto& [name, check] : checks()) {
    unmatched.erase(name);
    if (std::find(exclude.begin(), exclude.end(), name) != exclude.end()) {
      lines += "[+]" + name + " excluded: ok\n";
      continue;
    }
    if (auto reason = run_check(check)) {
      failed = true;
      spdlog::warn("{} check \"{}\" failed: {}", kind_, name, *reason);
      lines += "[-]" + name + " failed: reason withheld\n";
    } else {
      lines += "[+]" + name + " ok\n";
    }
  }
  if (!unmatched.empty()) {
    lines += "warn: some health checks cannot be excluded: no matches for";
    for (const auto& name : unmatched) lines += " \"" + name + "\"";
    lines += '\n';
  }
  if (failed) return {500, lines + kind_ + " check failed\n"};
  if (!verbose) return {200, "ok"};
  return {200, lines + kind_ + " check passed\n"};
}

std::optional<HealthReport> HealthChecks::run_one(std::string_view name) const {
  for (const auto& [check_name, check] : checks()) {
    if (check_name != name) continue;
    if (auto reason = run_check(check)) return HealthReport{500, "internal server error: " + *reason};
    return HealthReport{200, "ok"};
  }
  return std::nullopt;
}

}  // namespace gpupool::metrics
