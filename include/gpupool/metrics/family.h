// A metric family: one name, help text, kind and fixed list of label names,
// with one child per tuple of label values, e.g.
//   family.with({"reconcile", "success"}).inc();
// Children are created on first use and live as long as the family (that is,
// as long as its registry): with() takes a mutex, so hot paths should keep the
// reference it returns; updating a child takes no lock.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "gpupool/metrics/snapshot.h"

namespace gpupool::metrics {

// What every family has, whatever its children are. Made by a Registry.
class FamilyBase {
 public:
  virtual ~FamilyBase() = default;
  FamilyBase(const FamilyBase&) = delete;
  FamilyBase& operator=(const FamilyBase&) = delete;

  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }
  const std::vector<double>& bucket_bounds() const { return bucket_bounds_; }  // empty unless a histogram
  virtual MetricKind kind() const = 0;

  // The family and its children, in ascending order of label values; children
  // whose collect() says false (an unset gauge function) are left out.
  virtual FamilySnapshot collect() const = 0;

 protected:
  FamilyBase(std::string name, std::string help, std::vector<std::string> label_names,
             std::vector<double> bucket_bounds);
  // Throws std::invalid_argument, naming the metric, unless there is one value
  // per label name.
  void check_label_values(const std::vector<std::string>& values) const;
  FamilySnapshot empty_snapshot() const;

 private:
  std::string name_;
  std::string help_;
  std::vector<std::string> label_names_;
  std::vector<double> bucket_bounds_;
};

// Child is Counter, Gauge, Histogram or GaugeFunction.
template <typename Child>
class Family final : public FamilyBase {
 public:
  using Factory = std::function<std::unique_ptr<Child>()>;

  Family(std::string name, std::string help, std::vector<std::string> label_names,
         std::vector<double> bucket_bounds, Factory make)
      : FamilyBase(std::move(name), std::move(help), std::move(label_names), std::move(bucket_bounds)),
        make_(std::move(make)) {}

  MetricKind kind() const override { return Child::kKind; }

  // The child for these label values (one per label name, in order; any
  // UTF-8 text), created on first use. Throws std::invalid_argument on a
  // wrong number of values.
  Child& with(const std::vector<std::string>& label_values) {
    check_label_values(label_values);
    std::lock_guard lock(mu_);
    auto& slot = children_[label_values];
    if (!slot) slot = make_();
    return *slot;
  }

  FamilySnapshot collect() const override {
    // Children are never removed, so their addresses stay valid after the
    // lock is released; collecting outside it lets a gauge function be slow
    // without blocking with().
    std::vector<std::pair<const std::vector<std::string>*, const Child*>> children;
    {
      std::lock_guard lock(mu_);
      children.reserve(children_.size());
      for (const auto& [values, child] : children_) children.emplace_back(&values, child.get());
    }
    FamilySnapshot out = empty_snapshot();
    out.children.reserve(children.size());
    for (const auto& [values, child] : children) {
      ChildSnapshot snapshot;
      snapshot.label_values = *values;
      if (child->collect(snapshot)) out.children.push_back(std::move(snapshot));
    }
    return out;
  }

 private:
  Factory make_;
  mutable std::mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<Child>> children_;
};

}  // namespace gpupool::metrics
