// The Prometheus text exposition format, version 0.0.4:
//   # HELP <name> <help, with \ and newline escaped>
//   # TYPE <name> counter|gauge|histogram
//   <name>{<label>="<value, with \ " and newline escaped>",...} <value>
// Families come in the order given (a registry gives them sorted by name),
// each child's labels in the family's label order; a family with no children
// is left out, as is the HELP line of one without help. A histogram child
// writes <name>_bucket{...,le="<bound>"} with cumulative counts, ending with
// le="+Inf" (equal to the count), then <name>_sum and <name>_count. Values
// are the shortest text that reads back as the same double; +Inf, -Inf and
// NaN are spelled so.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpupool/metrics/snapshot.h"

namespace gpupool::metrics {

class Registry;

// The Content-Type of the text format.
inline constexpr std::string_view kTextContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string render_text(const std::vector<FamilySnapshot>& families);
std::string render_text(const Registry& registry);

// The pieces, exposed for tests.
std::string escape_help(std::string_view help);           // \ -> \\, newline -> \n
std::string escape_label_value(std::string_view value);   // also " -> \"
std::string format_value(double value);

}  // namespace gpupool::metrics
