// Until the reconcilers exist, the controller lists and watches nodes and
// logs what it sees: proof that configuration, TLS, auth, list and watch
// work end to end against a real cluster.
#pragma once

#include <stop_token>
#include <string>

#include "gpupool/kube/client.h"

namespace gpupool::controller {

// A one-line description of a node: name, readiness, GPU capacity.
std::string describe_node(const rapidjson::Value& node);

// Lists nodes, then watches them, relisting on 410 Gone, until `stop` fires.
void observe_nodes(kube::Client& client, std::stop_token stop);

}  // namespace gpupool::controller
