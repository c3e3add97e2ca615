#include "gpupool/api/label_selector.h"

#include <algorithm>

namespace gpupool::api {

bool selector_matches(const LabelSelector& selector, const std::map<std::string, std::string>& labels) {
  for (const auto& [key, value] : selector.match_labels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  for (const auto& r : selector.match_expressions) {
    auto it = labels.find(r.key);
    const bool present = it != labels.end();
    const bool listed = present && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
    switch (r.op) {
      case SelectorOperator::in:
        if (!listed) return false;
        break;
      case SelectorOperator::not_in:
        if (listed) return false;
        break;
      case SelectorOperator::exists:
        if (!present) return false;
        break;
      case SelectorOperator::does_not_exist:
        if (present) return false;
        break;
    }
  }
  return true;
}

}  // namespace gpupool::api
