#include "gpupool/metrics/family.h"

#include <stdexcept>
#include <utility>

namespace gpupool::metrics {

FamilyBase::FamilyBase(std::string name, std::string help, std::vector<std::string> label_names,
                       std::vector<double> bucket_bounds)
    : name_(std::move(name)),
      help_(std::move(help)),
      label_names_(std::move(label_names)),
      bucket_bounds_(std::move(bucket_bounds)) {}

void FamilyBase::check_label_values(const std::vector<std::string>& values) const {
  if (values.size() != label_names_.size()) {
    throw std::invalid_argument("metrics: " + name_ + " has " + std::to_string(label_names_.size()) +
                                " label(s) but was given " + std::to_string(values.size()) + " value(s)");
  }
}

FamilySnapshot FamilyBase::empty_snapshot() const {
  FamilySnapshot out;
  out.name = name_;
  out.help = help_;
  out.kind = kind();
  out.label_names = label_names_;
  out.bucket_bounds = bucket_bounds_;
  return out;
}

}  // namespace gpupool::metrics
