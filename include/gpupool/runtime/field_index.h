// A store index of objects by the string at one JSON path (GPUNodes by
// spec.pool, TenantQuotas by spec.poolRef.name), named after the path, so
// every reconciler sharing an informer's store shares the one index.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/kube/object.h"
#include "gpupool/runtime/store.h"

namespace gpupool::runtime {

// The index's name: the path joined with '.' ("spec.pool").
std::string field_index_name(std::initializer_list<std::string_view> path);

// Adds the index (objects without a string there, or an empty one: in none).
void index_by_field(Store<kube::Object>& store, std::initializer_list<std::string_view> path);

// The objects holding `value` at `path`, in key order; adds the index first
// if the store has none.
std::vector<Store<kube::Object>::Ptr> by_field(Store<kube::Object>& store, std::initializer_list<std::string_view> path,
                                               const std::string& value);

}  // namespace gpupool::runtime
