#include "family_set.h"

#include <stdexcept>

namespace gpupool::exporter {

void FamilySet::add(const std::string& name, metrics::MetricKind kind, const std::string& help,
                    const std::vector<std::string>& label_names, std::vector<std::string> label_values, double value) {
  auto [it, added] = index_.try_emplace(name, families_.size());
  if (added) {
    metrics::FamilySnapshot f;
    f.name = name;
    f.help = help;
    f.kind = kind;
    f.label_names = label_names;
    families_.push_back(std::move(f));
  }
  metrics::FamilySnapshot& f = families_[it->second];
  if (f.label_names != label_names || label_values.size() != label_names.size()) {
    throw std::logic_error("exporter: family " + name + " used with different labels");
  }
  metrics::ChildSnapshot c;
  c.label_values = std::move(label_values);
  c.value = value;
  f.children.push_back(std::move(c));
}

void FamilySet::append_to(std::vector<metrics::FamilySnapshot>& out) {
  for (auto& f : families_) out.push_back(std::move(f));
  families_.clear();
  index_.clear();
}

}  // namespace gpupool::exporter
