// The metav1 pieces the gpupool.io kinds share: object metadata, conditions,
// label selectors, references and timestamps.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/api/enum_names.h"
#include "gpupool/api/parse_result.h"

namespace gpupool::api {

// A metav1.Time: an RFC 3339 date-time ("2024-05-01T12:00:00Z", optional
// fractional seconds, "Z" or a "+02:00" offset; years 0000-9999). Keeps its
// text; == compares the text, time() the instant (to the microsecond).
class Time {
 public:
  using TimePoint = std::chrono::sys_time<std::chrono::microseconds>;

  Time() = default;  // "1970-01-01T00:00:00Z"
  // Formats as metav1.Time does: UTC, whole seconds ("2024-05-01T12:00:00Z").
  explicit Time(TimePoint t);
  // `text` as a time, or "must be an RFC 3339 date-time ...".
  static Parsed<Time> parse(std::string_view text);

  const std::string& text() const { return text_; }
  TimePoint time() const { return time_; }

  bool operator==(const Time&) const = default;

 private:
  std::string text_ = "1970-01-01T00:00:00Z";
  TimePoint time_{};
};

// metadata: what the controllers read and write. Decoding is lenient here
// only: other metadata fields (managedFields, ownerReferences, ...) are
// ignored, while the fields below are type-checked.
struct ObjectMeta {
  std::string name;
  std::string namespace_;  // JSON "namespace"
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::int64_t generation = 0;
  std::string resource_version;
  std::string uid;
  std::optional<Time> creation_timestamp;
  std::optional<Time> deletion_timestamp;
  std::vector<std::string> finalizers;

  bool operator==(const ObjectMeta&) const = default;
};

enum class ConditionStatus { true_, false_, unknown };
GPUPOOL_API_ENUM_NAMES(ConditionStatus, {ConditionStatus::true_, "True"}, {ConditionStatus::false_, "False"},
                       {ConditionStatus::unknown, "Unknown"})

// As metav1.Condition.
struct Condition {
  std::string type;                             // required
  ConditionStatus status = ConditionStatus::unknown;  // required
  std::int64_t observed_generation = 0;
  Time last_transition_time;                    // required
  std::string reason;                           // required
  std::string message;                          // required, may be empty

  bool operator==(const Condition&) const = default;
};

enum class SelectorOperator { in, not_in, exists, does_not_exist };
GPUPOOL_API_ENUM_NAMES(SelectorOperator, {SelectorOperator::in, "In"}, {SelectorOperator::not_in, "NotIn"},
                       {SelectorOperator::exists, "Exists"}, {SelectorOperator::does_not_exist, "DoesNotExist"})

struct LabelSelectorRequirement {
  std::string key;                                      // required
  SelectorOperator op = SelectorOperator::in;           // required, JSON "operator"
  std::vector<std::string> values;

  bool operator==(const LabelSelectorRequirement&) const = default;
};

// As metav1.LabelSelector: both parts must match; empty selects everything.
struct LabelSelector {
  std::map<std::string, std::string> match_labels;
  std::vector<LabelSelectorRequirement> match_expressions;

  bool operator==(const LabelSelector&) const = default;
};

struct LocalObjectReference {
  std::string name;  // required

  bool operator==(const LocalObjectReference&) const = default;
};

}  // namespace gpupool::api
