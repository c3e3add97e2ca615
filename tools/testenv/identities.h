// Who can talk to the apiserver: the static token file (--token-auth-file)
// and the kubeconfig files built from it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gpupool/testenv/control_plane.h"

namespace gpupool::testenv::detail {

// admin and kwok-controller (system:masters), system:kube-controller-manager,
// system:kube-scheduler, alice and bob (no groups), and system:node:kwok-node-<i>
// (system:nodes) for i < kProvisionedNodes.
std::vector<Identity> default_identities();

// The token file: one line per user, `token,user,uid,"group,..."`.
class TokenFile {
 public:
  // Reads `path` when it exists (keeping existing tokens), adds a fresh token
  // for every identity not in it, updates groups, and writes it back (0600).
  // Throws std::invalid_argument for a name the file format cannot carry.
  static TokenFile ensure(const std::string& path, const std::vector<Identity>& identities);

  // Throws std::out_of_range naming the user (never a token) when unknown.
  const std::string& token_for(const std::string& user) const;
  bool has(const std::string& user) const { return tokens_.count(user) != 0; }

 private:
  std::map<std::string, std::string> tokens_;  // user -> token
};

// A kubeconfig for one user with the CA embedded.
std::string kubeconfig_yaml(const std::string& server, const std::string& ca_pem, const std::string& user,
                            const std::string& token);

}  // namespace gpupool::testenv::detail
