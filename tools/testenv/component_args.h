// Command lines of the control-plane components, after kwokctl's "binary"
// runtime (sigs.k8s.io/kwok pkg/kwokctl/components) and kubeadm's static pod
// manifests, adapted to loopback ports and token authentication.
#pragma once

#include <string>
#include <vector>

#include "layout.h"

namespace gpupool::testenv::detail {

// Admission plugins: the apiserver's defaults plus NodeRestriction, spelled
// out so the list in use is visible here.
extern const char* const kAdmissionPlugins;
// Service network; the "kubernetes" Service gets its first address, 10.96.0.1.
extern const char* const kServiceClusterIpRange;
// Nodes carrying this annotation are the ones kwok simulates.
extern const char* const kKwokManageAnnotation;  // "kwok.x-k8s.io/node"
extern const char* const kKwokManageValue;       // "fake"

std::vector<std::string> etcd_args(const Layout& l);
std::vector<std::string> apiserver_args(const Layout& l, const std::vector<std::string>& extra);
std::vector<std::string> controller_manager_args(const Layout& l, int node_lease_seconds);
std::vector<std::string> scheduler_args(const Layout& l);
std::vector<std::string> kwok_args(const Layout& l, int node_lease_seconds);

}  // namespace gpupool::testenv::detail
