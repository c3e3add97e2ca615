#include "common_rules.h"

#include <map>
#include <regex>
#include <set>

#include "gpupool/api/installer_parameters.h"
#include "gpupool/api/resource_names.h"
#include "gpupool/validation/semantic.h"

namespace gpupool::validation {
namespace {

using api::FieldPath;
using namespace std::chrono_literals;

void add(api::FieldErrors& errors, const FieldPath& path, std::string reason) {
  errors.push_back({path.str(), std::move(reason)});
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

}  // namespace

bool is_dns1123_label(const std::string& s) {
  static const std::regex re("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
  return !s.empty() && s.size() <= 63 && std::regex_match(s, re);
}

bool is_dns1123_subdomain(const std::string& s) {
  static const std::regex re("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  return !s.empty() && s.size() <= 253 && std::regex_match(s, re);
}

bool is_label_key(const std::string& key) {
  static const std::regex name("^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$");
  static const std::regex prefix("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$");
  auto slash = key.find('/');
  if (slash == std::string::npos) return std::regex_match(key, name);
  std::string p = key.substr(0, slash), n = key.substr(slash + 1);
  return !p.empty() && p.size() <= 253 && std::regex_match(p, prefix) && std::regex_match(n, name);
}

void check_selector(const api::LabelSelector& s, const FieldPath& path, api::FieldErrors& errors) {
  for (std::size_t i = 0; i < s.match_expressions.size(); ++i) {
    const auto& r = s.match_expressions[i];
    FieldPath values = path.field("matchExpressions").index(i).field("values");
    bool needs_values = r.op == api::SelectorOperator::in || r.op == api::SelectorOperator::not_in;
    if (needs_values && r.values.empty()) {
      add(errors, values, "Required value: operators In and NotIn require at least one value");
    } else if (!needs_values && !r.values.empty()) {
      add(errors, values, "Forbidden: operators Exists and DoesNotExist take no values");
    }
  }
}

void check_drain(const api::DrainOptions& d, const FieldPath& path, api::FieldErrors& errors) {
  check_duration_range(d.timeout, 1s, 24h, path.field("timeout"), errors);
  if (!d.skip_pod_label.empty() && !is_label_key(d.skip_pod_label)) {
    add(errors, path.field("skipPodLabel"), "Invalid value: " + quoted(d.skip_pod_label) + ": must be a label key");
  }
}

void check_upgrade_strategy(const api::UpgradeStrategy& u, const FieldPath& path, api::FieldErrors& errors) {
  FieldPath mu = path.field("maxUnavailable");
  if (u.max_unavailable.is_int()) {
    if (std::get<std::int32_t>(u.max_unavailable.value) < 1) {
      add(errors, mu, "Invalid value: " + std::to_string(std::get<std::int32_t>(u.max_unavailable.value)) +
                          ": maxUnavailable must be an integer >= 1 or a percentage from \"1%\" to \"100%\"");
    }
  } else {
    static const std::regex percent("^([1-9][0-9]?|100)%$");
    const auto& s = std::get<std::string>(u.max_unavailable.value);
    if (!std::regex_match(s, percent)) {
      add(errors, mu, "Invalid value: " + quoted(s) +
                          ": maxUnavailable must be an integer >= 1 or a percentage from \"1%\" to \"100%\"");
    }
  }
  check_drain(u.drain, path.field("drain"), errors);
  // The CRD's CEL rules on order, for the offline validator.
  if (u.order.by == api::RolloutOrderBy::label && u.order.label.empty()) {
    add(errors, path.field("order").field("label"), "Required value: label is required when by is Label");
  }
  if (u.order.by != api::RolloutOrderBy::label && !u.order.label.empty()) {
    add(errors, path.field("order").field("label"), "Forbidden: label may only be set when by is Label");
  }
  for (std::size_t i = 0; i < u.maintenance_windows.size(); ++i) {
    const auto& w = u.maintenance_windows[i];
    FieldPath wp = path.field("maintenanceWindows").index(i);
    check_duration_range(w.duration, 1min, 24h, wp.field("duration"), errors);
    std::set<api::Weekday> seen;
    for (std::size_t d = 0; d < w.days.size(); ++d) {
      if (!seen.insert(w.days[d]).second) {
        add(errors, wp.field("days").index(d), "Duplicate value: " + quoted(std::string(api::to_string(w.days[d]))));
      }
    }
  }
}

void check_health_rules(const api::HealthRules& h, const FieldPath& path, api::FieldErrors& errors) {
  std::map<std::int32_t, std::size_t> owner;
  for (std::size_t r = 0; r < h.xids.size(); ++r) {
    const auto& codes = h.xids[r].codes;
    for (std::size_t c = 0; c < codes.size(); ++c) {
      auto [it, fresh] = owner.emplace(codes[c], r);
      if (!fresh) {
        add(errors, path.field("xids").index(r).field("codes").index(c),
            "Duplicate value: " + std::to_string(codes[c]) + ": XID already handled by xids[" +
                std::to_string(it->second) + "]");
      }
    }
  }
  if (const auto& t = h.temperature; t && t->critical_celsius <= t->warning_celsius) {
    add(errors, path.field("temperature").field("criticalCelsius"),
        "Invalid value: " + std::to_string(t->critical_celsius) +
            ": criticalCelsius must be greater than warningCelsius (" + std::to_string(t->warning_celsius) + ")");
  }
  check_duration_range(h.recovery_period, 1min, 24h, path.field("recoveryPeriod"), errors);
  static const std::string kLimit =
      ": maxUnhealthyNodes must be an integer >= 0 or a percentage from \"0%\" to \"100%\"";
  if (h.max_unhealthy_nodes.is_int()) {
    const auto n = std::get<std::int32_t>(h.max_unhealthy_nodes.value);
    if (n < 0) add(errors, path.field("maxUnhealthyNodes"), "Invalid value: " + std::to_string(n) + kLimit);
  } else {
    static const std::regex percent("^(100|[1-9]?[0-9])%$");
    const auto& s = std::get<std::string>(h.max_unhealthy_nodes.value);
    if (!std::regex_match(s, percent)) {
      add(errors, path.field("maxUnhealthyNodes"), "Invalid value: " + quoted(s) + kLimit);
    }
  }
}

void check_sharing(const api::Sharing& s, const FieldPath& path, api::FieldErrors& errors) {
  using api::SharingMode;
  if (s.mode == SharingMode::time_slicing && !s.time_slicing) {
    add(errors, path.field("timeSlicing"), "Required value: timeSlicing is required when mode is timeSlicing");
  }
  if (s.mode != SharingMode::time_slicing && s.time_slicing) {
    add(errors, path.field("timeSlicing"), "Forbidden: timeSlicing may only be set when mode is timeSlicing");
  }
  if (s.mode == SharingMode::mps && !s.mps) {
    add(errors, path.field("mps"), "Required value: mps is required when mode is mps");
  }
  if (s.mode != SharingMode::mps && s.mps) {
    add(errors, path.field("mps"), "Forbidden: mps may only be set when mode is mps");
  }
}

void check_installer(const api::DriverInstaller& i, const FieldPath& path, api::FieldErrors& errors) {
  if (i.kind == api::InstallerKind::container && i.image.empty()) {
    add(errors, path.field("image"), "Required value: image is required when kind is container");
  }
  if (i.kind != api::InstallerKind::container && !i.image.empty()) {
    add(errors, path.field("image"), "Forbidden: image may only be set when kind is container");
  }
  api::read_installer_parameters(i, path, errors);
}

void check_monitoring(const api::Monitoring& m, const FieldPath& path, api::FieldErrors& errors) {
  check_duration_range(m.scrape_interval, 5s, 10min, path.field("scrapeInterval"), errors);
}

void check_label_map(const std::map<std::string, std::string>& labels, const FieldPath& path,
                     api::FieldErrors& errors) {
  static const std::regex value("^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$");
  for (const auto& [k, v] : labels) {
    if (!is_label_key(k)) {
      add(errors, path, "Invalid value: " + quoted(k) + ": every key must be a valid label key");
    }
    if (v.size() > 63 || !std::regex_match(v, value)) {
      add(errors, path, "Invalid value: " + quoted(v) + ": every value must be a valid label value");
    }
  }
}

bool is_quota_resource_name(std::string_view name, const gpu::Catalog& catalog) {
  return name == api::kGpuUnitResource || is_known_resource_name(name, catalog);
}

std::string unknown_resource_reason(const std::string& name) {
  return "Unsupported value: " + quoted(name) +
         ": not a GPU resource name (nvidia.com/gpu, nvidia.com/gpu.shared, amd.com/gpu, "
         "nvidia.com/mig-<profile> for a profile of a known GPU model, or gpupool.io/gpu for GPUs' worth)";
}

void check_resource_map(const std::map<std::string, api::QuantityValue>& resources, const gpu::Catalog& catalog,
                        const FieldPath& path, api::FieldErrors& errors) {
  for (const auto& [name, value] : resources) {
    FieldPath p = path.key(name);
    if (!is_quota_resource_name(name, catalog)) {
      add(errors, p, unknown_resource_reason(name));
      continue;
    }
    const api::Quantity& q = value.quantity;
    if (name == api::kGpuUnitResource) {
      // Grants move in thousandths of a GPU: a value is exact in milli-units
      // ("2.5" = 2500m) or refused ("1u" would round up to 1m).
      const auto milli = q.milli_value();
      const bool exact = milli && compare(q, api::parse_quantity(std::to_string(*milli) + "m").value.value()) ==
                                      std::strong_ordering::equal;
      if (q.is_negative() || !exact) {
        add(errors, p,
            "Invalid value: " + quoted(q.text()) + ": must be a non-negative number of GPUs with at most 3 decimals");
      }
      continue;
    }
    if (q.is_negative() || !q.is_whole_number() || !q.whole_value()) {
      add(errors, p, "Invalid value: " + quoted(q.text()) + ": must be a non-negative whole number of devices");
    }
  }
}

void check_duration_range(const api::Duration& d, std::chrono::nanoseconds min, std::chrono::nanoseconds max,
                          const FieldPath& path, api::FieldErrors& errors) {
  if (d.value() < min || d.value() > max) {
    add(errors, path,
        "Invalid value: " + quoted(d.text()) + ": must be between " + api::format_duration(min) + " and " +
            api::format_duration(max));
  }
}

}  // namespace gpupool::validation
