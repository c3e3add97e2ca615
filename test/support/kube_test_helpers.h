// Helpers for tests that talk to the real control plane through our client.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gpupool/kube/client.h"
#include "gpupool/kube/config.h"
#include "gpupool/testenv/control_plane.h"

namespace gpupool::test {

// A client configuration for the cluster's server and CA with a bearer token.
kube::RestConfig rest_config(const testenv::ControlPlane& cluster, const std::string& token);

// Polls `condition` until it holds or `deadline` passes; fails the test (and
// throws, to stop it) naming `what` on timeout. Exceptions from the condition
// count as "not yet".
void wait_for(std::chrono::milliseconds deadline, const std::function<bool()>& condition, const std::string& what);

// Installs a namespaced CRD widgets.test.gpupool.io (v1, status subresource,
// spec.size >= 0) and waits until it is served. Idempotent.
void install_widget_crd(kube::Client& client);

// Applies crds/ (server-side) and waits until every gpupool.io CRD is
// Established; the namespace gpupool-system is created too. Idempotent;
// fails the test on error.
void install_gpupool_crds(testenv::ControlPlane& cluster);

// `kubectl get <what> -o jsonpath=...` as "Kind namespace/name" ->
// metadata.generation for every object `what` names ({"-f", FILE} or
// {"-k", DIR}): what a second apply of the same files must not change (a
// status written meanwhile is not a change). Fails the test on error.
std::map<std::string, std::string> object_generations(const testenv::ControlPlane& cluster,
                                                      const std::vector<std::string>& what);

// A fresh directory under $TMPDIR, and its recursive removal.
std::string make_temp_dir(const std::string& prefix);
void remove_tree(const std::string& path);

}  // namespace gpupool::test
