// Simulated nodes: Node objects that kwok manages (it reports them Ready and
// runs the pods bound to them), created through kubectl with the admin
// identity.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "gpupool/testenv/control_plane.h"

namespace gpupool::testenv {

// Label set to "true" on every node created here (delete_kwok_nodes() uses it).
inline constexpr const char* kTestenvNodeLabel = "gpupool.io/testenv-node";

struct NodeSpec {
  // Nodes are <name_prefix><first_index + i>. The default names have node
  // identities (ControlPlane::node_token) for indexes below kProvisionedNodes.
  std::string name_prefix = kNodeNamePrefix;
  int first_index = 0;
  std::map<std::string, std::string> labels;       // added to the defaults (hostname, os, arch, type=kwok)
  std::map<std::string, std::string> annotations;  // added to kwok's management annotation
  // Capacity (= allocatable) besides cpu/memory/pods, e.g. {"nvidia.com/gpu", "8"};
  // an entry for cpu, memory or pods overrides the fields below.
  std::map<std::string, std::string> capacity;
  std::string cpu = "32";
  std::string memory = "256Gi";
  std::string pods = "110";
  // Taints as "key=value:Effect" or "key:Effect".
  std::vector<std::string> taints;
  std::chrono::seconds ready_timeout{90};
};

// Creates (or, for names that exist, updates labels, annotations, taints and
// capacity of) `n` nodes and waits until each is Ready with no not-ready or
// unreachable taint left, i.e. schedulable. Returns their names. Throws
// std::runtime_error with kubectl's output or the nodes not ready in time.
std::vector<std::string> create_kwok_nodes(const ControlPlane& cluster, int n, const NodeSpec& spec = {});

// Deletes the named nodes (missing ones are fine) and waits until they are gone.
void delete_nodes(const ControlPlane& cluster, const std::vector<std::string>& names);

// Deletes every node created by create_kwok_nodes().
void delete_kwok_nodes(const ControlPlane& cluster);

}  // namespace gpupool::testenv
