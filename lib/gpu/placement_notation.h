// nvidia-smi mig -lgipp placement notation: "{0,2,4,6}:2" = starts 0, 2, 4
// and 6, each occupying 2 memory slices.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gpupool/gpu/catalog.h"

namespace gpupool::gpu {

// Strict: braces, at least one start, decimal starts in strictly ascending
// order separated by single commas, ':' and a positive size; no spaces.
// Returns the placements or why the text is not in that form.
std::variant<std::vector<MigPlacement>, std::string> parse_placements(std::string_view text);

}  // namespace gpupool::gpu
