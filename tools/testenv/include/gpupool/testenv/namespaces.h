// Namespaces for tests, through kubectl with the admin identity.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "gpupool/testenv/control_plane.h"

namespace gpupool::testenv {

// Creates the namespace (an existing one is fine) and waits until its
// "default" ServiceAccount exists, so pods can be created in it right away.
// Throws std::runtime_error with kubectl's output on failure or timeout.
void create_namespace(const ControlPlane& cluster, const std::string& name,
                      const std::map<std::string, std::string>& labels = {},
                      std::chrono::seconds timeout = std::chrono::seconds(60));

// Deletes the namespace (a missing one is fine). With `wait`, returns once it
// is gone (its finalization needs kube-controller-manager); otherwise at once.
void delete_namespace(const ControlPlane& cluster, const std::string& name, bool wait = false,
                      std::chrono::seconds timeout = std::chrono::seconds(120));

}  // namespace gpupool::testenv
