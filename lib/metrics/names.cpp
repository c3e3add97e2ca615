#include "gpupool/metrics/names.h"

namespace gpupool::metrics {
namespace {

bool is_letter_or_underscore(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

bool is_valid_metric_name(std::string_view name) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool ok = is_letter_or_underscore(c) || c == ':' || (i > 0 && is_digit(c));
    if (!ok) return false;
  }
  return true;
}

bool is_valid_label_name(std::string_view name) {
  if (name.empty() || name.starts_with("__")) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (!(is_letter_or_underscore(c) || (i > 0 && is_digit(c)))) return false;
  }
  return true;
}

}  // namespace gpupool::metrics
