// Matching a metav1.LabelSelector against labels, as apimachinery's
// LabelSelectorAsSelector + Matches do: every matchLabels pair and every
// expression must hold; an empty selector matches everything.
//   In            the key is present and its value is one of values
//   NotIn         the key is absent, or its value is none of values
//   Exists        the key is present
//   DoesNotExist  the key is absent
#pragma once

#include <map>
#include <string>

#include "gpupool/api/meta.h"

namespace gpupool::api {

bool selector_matches(const LabelSelector& selector, const std::map<std::string, std::string>& labels);

}  // namespace gpupool::api
