// The flags of the commands that talk to the cluster (status, explain,
// approve), as kubectl spells them, so `kubectl gpupool CMD` takes what
// kubectl users type: --kubeconfig, --context, -n/--namespace,
// --request-timeout, and -A/--all-namespaces where a command lists
// namespaced objects. Without --kubeconfig: $KUBECONFIG (files merged as
// kubectl merges them), in-cluster, ~/.kube/config (kube::load_default).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "gpupool/kube/config.h"

namespace gpupool::ctl {

class ClusterOptions {
 public:
  // Adds the flags to `cmd`; -A/--all-namespaces only with `all_namespaces`.
  void add_to(CLI::App& cmd, bool all_namespaces = false);

  // The configuration the flags select. Throws kube::ConfigError
  // ("context \"x\" (from --context) not found").
  kube::RestConfig load() const;

  // -n, else the kubeconfig context's namespace (as kubectl), else "default".
  std::string namespace_for(const kube::RestConfig& config) const;
  bool namespace_given() const { return !namespace_.empty(); }
  bool all_namespaces() const { return all_namespaces_; }

 private:
  std::string kubeconfig_, context_, namespace_, request_timeout_;
  bool all_namespaces_ = false;
};

}  // namespace gpupool::ctl
