// A problem with one field of an object, as every validator in the project
// reports it (decoders, the offline schema check, semantic validation).
//
// Paths use the Kubernetes field-path syntax the API server prints, so an
// error reads the same whether kube-apiserver or gpupoolctl found it:
//   spec.driver.upgradeStrategy.maxUnavailable     fields, dot-separated
//   spec.nodeTaints[1].effect                      list index
//   spec.resources[nvidia.com/gpu]                 map key
// The path of the whole object is "" and of a top-level field its name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpupool::api {

struct FieldError {
  std::string path;    // "spec.nodeTaints[1].effect"
  std::string reason;  // "Unsupported value: \"NoScheduel\": supported values: \"NoSchedule\", ..."
  bool operator==(const FieldError&) const = default;
};

using FieldErrors = std::vector<FieldError>;

// Builds child paths: FieldPath("spec").field("nodeTaints").index(1).field("effect").
class FieldPath {
 public:
  FieldPath() = default;
  explicit FieldPath(std::string_view root) : path_(root) {}
  FieldPath field(std::string_view name) const {
    return FieldPath(path_.empty() ? std::string(name) : path_ + "." + std::string(name));
  }
  FieldPath index(std::size_t i) const { return FieldPath(path_ + "[" + std::to_string(i) + "]"); }
  FieldPath key(std::string_view k) const { return FieldPath(path_ + "[" + std::string(k) + "]"); }
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

// "spec.x: reason" lines, one per error, for messages and logs.
std::string format_field_errors(const FieldErrors& errors);

}  // namespace gpupool::api
