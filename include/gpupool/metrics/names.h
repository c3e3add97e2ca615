// The Prometheus data model's grammar for metric and label names.
#pragma once

#include <string_view>

namespace gpupool::metrics {

// [a-zA-Z_:][a-zA-Z0-9_:]* (colons are meant for recording rules, but legal).
bool is_valid_metric_name(std::string_view name);

// [a-zA-Z_][a-zA-Z0-9_]*, and not starting with "__" (reserved for Prometheus'
// own use).
bool is_valid_label_name(std::string_view name);

}  // namespace gpupool::metrics
