#include "gpupool/metrics/registry.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <utility>

#include "gpupool/metrics/names.h"

namespace gpupool::metrics {
namespace {

[[noreturn]] void reject(const std::string& name, const std::string& why) {
  throw std::invalid_argument("metrics: " + name + ": " + why);
}

std::string describe(MetricKind kind, const std::vector<std::string>& label_names) {
  std::string out(kind_name(kind));
  out += '{';
  for (std::size_t i = 0; i < label_names.size(); ++i) {
    if (i > 0) out += ',';
    out += label_names[i];
  }
  out += '}';
  return out;
}

void validate_names(const std::string& name, MetricKind kind, const std::vector<std::string>& label_names) {
  if (!is_valid_metric_name(name)) reject(name, "not a valid metric name");
  std::set<std::string> seen;
  for (const auto& label : label_names) {
    if (!is_valid_label_name(label)) reject(name, "\"" + label + "\" is not a valid label name");
    if (!seen.insert(label).second) reject(name, "label \"" + label + "\" is given twice");
    if (kind == MetricKind::Histogram && label == "le") reject(name, "a histogram cannot have a label \"le\"");
  }
}

std::vector<double> normalize_buckets(const std::string& name, std::vector<double> buckets) {
  if (!buckets.empty() && std::isinf(buckets.back()) && buckets.back() > 0) buckets.pop_back();
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    if (!std::isfinite(buckets[i])) reject(name, "histogram bucket bounds must be finite (+Inf is implied)");
    if (i > 0 && !(buckets[i - 1] < buckets[i])) reject(name, "histogram bucket bounds must be strictly increasing");
  }
  return buckets;
}

// The family's name and those of the samples it writes: no two families may
// share any of them.
std::vector<std::string> names_used(const std::string& name, MetricKind kind) {
  if (kind == MetricKind::Histogram) return {name, name + "_bucket", name + "_sum", name + "_count"};
  return {name};
}

}  // namespace

Registry::Registry() = default;
Registry::~Registry() = default;

FamilyBase& Registry::find_or_add(const std::string& name, MetricKind kind,
                                  const std::vector<std::string>& label_names, const std::vector<double>& buckets,
                                  const std::function<std::unique_ptr<FamilyBase>()>& make) {
  std::lock_guard lock(mu_);
  if (auto it = families_.find(name); it != families_.end()) {
    FamilyBase& existing = *it->second;
    if (existing.kind() != kind || existing.label_names() != label_names) {
      reject(name, "already registered as " + describe(existing.kind(), existing.label_names()) +
                       ", cannot register it as " + describe(kind, label_names));
    }
    if (existing.bucket_bounds() != buckets) reject(name, "already registered with different histogram buckets");
    return existing;
  }
  const auto mine = names_used(name, kind);
  for (const auto& [other_name, other] : families_) {
    for (const auto& theirs : names_used(other_name, other->kind())) {
      if (std::find(mine.begin(), mine.end(), theirs) != mine.end()) {
        reject(name, "its samples would clash with those of " + std::string(kind_name(other->kind())) + " " +
                         other_name);
      }
    }
  }
  auto& slot = families_[name];
  slot = make();
  return *slot;
}

Family<Counter>& Registry::counter(const std::string& name, const std::string& help,
                                   const std::vector<std::string>& label_names) {
  validate_names(name, MetricKind::Counter, label_names);
  auto& family = static_cast<Family<Counter>&>(find_or_add(name, MetricKind::Counter, label_names, {}, [&] {
    return std::make_unique<Family<Counter>>(name, help, label_names, std::vector<double>{},
                                             [] { return std::make_unique<Counter>(); });
  }));
  if (label_names.empty()) family.with({});
  return family;
}

Family<Gauge>& Registry::gauge(const std::string& name, const std::string& help,
                               const std::vector<std::string>& label_names) {
  validate_names(name, MetricKind::Gauge, label_names);
  auto& family = static_cast<Family<Gauge>&>(find_or_add(name, MetricKind::Gauge, label_names, {}, [&] {
    return std::make_unique<Family<Gauge>>(name, help, label_names, std::vector<double>{},
                                           [] { return std::make_unique<Gauge>(); });
  }));
  if (label_names.empty()) family.with({});
  return family;
}

Family<Histogram>& Registry::histogram(const std::string& name, const std::string& help,
                                       const std::vector<std::string>& label_names, std::vector<double> buckets) {
  validate_names(name, MetricKind::Histogram, label_names);
  buckets = normalize_buckets(name, std::move(buckets));
  auto& family =
      static_cast<Family<Histogram>&>(find_or_add(name, MetricKind::Histogram, label_names, buckets, [&] {
        auto bounds = std::make_shared<const std::vector<double>>(buckets);
        return std::make_unique<Family<Histogram>>(name, help, label_names, buckets,
                                                   [bounds] { return std::make_unique<Histogram>(bounds); });
      }));
  if (label_names.empty()) family.with({});
  return family;
}

Family<GaugeFunction>& Registry::gauge_function_family(const std::string& name, const std::string& help,
                                                       const std::vector<std::string>& label_names) {
  validate_names(name, MetricKind::GaugeFunction, label_names);
  return static_cast<Family<GaugeFunction>&>(find_or_add(name, MetricKind::GaugeFunction, label_names, {}, [&] {
    return std::make_unique<Family<GaugeFunction>>(name, help, label_names, std::vector<double>{},
                                                   [] { return std::make_unique<GaugeFunction>(); });
  }));
}

GaugeFunction& Registry::gauge_function(const std::string& name, const std::string& help,
                                        std::function<double()> fn) {
  auto& child = gauge_function_family(name, help, {}).with({});
  child.set(std::move(fn));
  return child;
}

void Registry::add_collector(std::function<std::vector<FamilySnapshot>()> fn) {
  std::lock_guard lock(mu_);
  collectors_.push_back(std::move(fn));
}

std::vector<FamilySnapshot> Registry::collect() const {
  std::vector<const FamilyBase*> families;
  std::vector<std::function<std::vector<FamilySnapshot>()>> collectors;
  {
    std::lock_guard lock(mu_);
    families.reserve(families_.size());
    for (const auto& [name, family] : families_) families.push_back(family.get());
    collectors = collectors_;
  }
  std::vector<FamilySnapshot> out;
  out.reserve(families.size());
  for (const auto* family : families) out.push_back(family->collect());
  if (collectors.empty()) return out;
  std::set<std::string> names;
  for (const auto& f : out) names.insert(f.name);
  for (const auto& c : collectors) {
    for (auto& f : c()) {
      if (f.children.empty() || !names.insert(f.name).second) continue;
      out.push_back(std::move(f));
    }
  }
  std::sort(out.begin(), out.end(), [](const FamilySnapshot& a, const FamilySnapshot& b) { return a.name < b.name; });
  return out;
}

Registry& default_registry() {
  static Registry* const registry = new Registry();
  return *registry;
}

}  // namespace gpupool::metrics
