// `gpupool-localcluster demo`: the README's first command. On a running
// local control plane: simulated GPU nodes of four models (A100 80GB, H100
// 80GB, T4, MI300X), each with its own gpupool-agent process on the simulated
// backend, gpupool-controller with its webhooks on a loopback port, the demo
// manifests (tools/dev/demo: pools, policy, quotas), then the tenants'
// workloads once the quota gate covers their namespaces; then one screen,
// refreshed every couple of seconds, showing them converge.
//
// Machine-readable progress for scripts and the CI test: on stdout the line
// "demo: converged" each time everything has settled (every pool Ready with
// all its nodes, every quota Granted, every demo node in a pool) and
// "demo: converging" when it no longer is; the file <state-dir>/demo/converged
// exists exactly while it is settled.
#pragma once

#include <signal.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpupool/testenv/control_plane.h"
#include "gpupool/testenv/process.h"

namespace gpupool::localcluster {

struct DemoOptions {
  std::string agent;       // gpupool-agent
  std::string controller;  // gpupool-controller
  std::string gpupoolctl;  // for the printed hints (kubectl-gpupool lives beside it); "" = not shown
  std::string manifests;   // a kustomization directory (tools/dev/demo), applied with -k
  std::string workloads;   // a directory applied with -f once the gate covers the tenants; "" = none
  int nodes = 1;           // per model
  int gpus_per_node = 8;   // 1..16 (the simulated backend's limit per model)
  std::chrono::milliseconds refresh{2000};
};

// Thrown by Demo::start when `cancel` turned true.
struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("cancelled") {}
};

class Demo {
 public:
  Demo(const testenv::ControlPlane& cluster, DemoOptions options);
  ~Demo();  // stop()
  Demo(const Demo&) = delete;
  Demo& operator=(const Demo&) = delete;

  // Nodes (stale ones from an earlier run with other flags deleted), agents,
  // controller, manifests, workloads. Throws std::runtime_error saying what
  // failed, Cancelled once `cancel` is true. Call once.
  void start(const std::atomic<bool>& cancel);

  // The screen until SIGINT or SIGTERM (returns 0) or until a process of the
  // demo or a control-plane component exits (returns 1, naming its log).
  // `signals` are blocked in every thread; they are taken with sigtimedwait.
  int show(const sigset_t& signals);

  // SIGTERM to the controller and the agents, SIGKILL after a grace;
  // idempotent. The control plane is the caller's.
  void stop();

  std::string demo_dir() const;  // <state-dir>/demo: world files, hardware state, logs
  std::vector<std::string> node_names() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpupool::localcluster
