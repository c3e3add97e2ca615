#include "gpupool/api/field_error.h"

namespace gpupool::api {

std::string format_field_errors(const FieldErrors& errors) {
  std::string out;
  for (const auto& e : errors) {
    if (!out.empty()) out += '\n';
    out += e.path.empty() ? e.reason : e.path + ": " + e.reason;
  }
  return out;
}

}  // namespace gpupool::api
