// The configuration file kwok runs with (--config).
#pragma once

#include <string>

namespace gpupool::testenv::detail {

// A KwokConfiguration followed by kwok's default node and pod Stages.
std::string kwok_config_yaml();

}  // namespace gpupool::testenv::detail
