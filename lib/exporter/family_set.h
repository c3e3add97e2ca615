// Families built up sample by sample, kept in the order they were first used.
// Internal to lib/exporter.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gpupool/metrics/snapshot.h"

namespace gpupool::exporter {

class FamilySet {
 public:
  // One series of family `name`; the family is made on first use with this
  // kind, help and label names (later calls must pass the same label names).
  void add(const std::string& name, metrics::MetricKind kind, const std::string& help,
           const std::vector<std::string>& label_names, std::vector<std::string> label_values, double value);
  void gauge(const std::string& name, const std::string& help, const std::vector<std::string>& label_names,
             std::vector<std::string> label_values, double value) {
    add(name, metrics::MetricKind::Gauge, help, label_names, std::move(label_values), value);
  }
  void counter(const std::string& name, const std::string& help, const std::vector<std::string>& label_names,
               std::vector<std::string> label_values, double value) {
    add(name, metrics::MetricKind::Counter, help, label_names, std::move(label_values), value);
  }
  // Moves the families out, appending them to `out`.
  void append_to(std::vector<metrics::FamilySnapshot>& out);

 private:
  std::vector<metrics::FamilySnapshot> families_;
  std::map<std::string, std::size_t> index_;
};

}  // namespace gpupool::exporter
