// The two halves of Catalog::parse: reading the YAML into models (shapes,
// types, notations) and checking the invariants across fields and models.
// Both throw CatalogError("gpu catalog <origin>: model <id>: <field>: <reason>").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpupool/gpu/catalog.h"

namespace gpupool::gpu::detail {

std::vector<GpuModel> read_catalog_models(std::string_view yaml_text, std::string_view origin);
void validate_catalog(const std::vector<GpuModel>& models, std::string_view origin);

// "gpu catalog <origin>: <where>: <reason>"
[[noreturn]] void catalog_fail(std::string_view origin, const std::string& where, const std::string& reason);

}  // namespace gpupool::gpu::detail
