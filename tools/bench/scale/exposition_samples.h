// Reading samples out of a Prometheus text exposition, for the scale
// benchmark's figures (queue_figures.h, apiserver_load.h). Pure; tolerant:
// comments, blank lines and lines that are not `metric{labels} value` or
// `metric value` are skipped.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace gpupool::bench {

// Calls `on_sample(metric, labels, value)` for every sample of
// `exposition`; `labels` is the text between the braces ("" without any).
// A sample whose value is not a number is skipped.
void for_each_sample(std::string_view exposition,
                     const std::function<void(std::string_view metric, std::string_view labels, double value)>& on_sample);

// The value of `key` in a sample's labels (`key="value"`), or "".
std::string label_value(std::string_view labels, std::string_view key);

}  // namespace gpupool::bench
