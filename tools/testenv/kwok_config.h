// The configuration file kwok runs with (--config).
#pragma once

#include <string>

namespace gpupool::testenv::detail {

// A KwokConfiguration followed by kwok's default node and pod Stages; kwok
// holds node leases for `node_lease_seconds`, renews them every quarter of it,
// `node_lease_parallelism` at once.
std::string kwok_config_yaml(int node_lease_seconds, int node_lease_parallelism);

}  // namespace gpupool::testenv::detail
