// The configuration file kwok runs with (--config).
#pragma once

#include <string>

namespace gpupool::testenv::detail {

// A KwokConfiguration followed by kwok's default node and pod Stages; kwok
// holds node leases for `node_lease_seconds` and renews them every quarter of it.
std::string kwok_config_yaml(int node_lease_seconds);

}  // namespace gpupool::testenv::detail
