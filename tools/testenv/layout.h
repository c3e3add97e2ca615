// Where a control plane keeps its files, and the ports it listens on.
//
//   <state>/pki/        CA, apiserver serving pair, service-account key pair
//   <state>/auth/       tokens.csv and one kubeconfig per component
//   <state>/kubeconfig  the admin kubeconfig
//   <state>/etcd/       etcd data
//   <state>/kwok/       kwok.yaml (and kwok's $HOME)
//   <state>/logs/       <component>.log
//   <state>/run/        self-signed serving certs of kcm and the scheduler
//   <state>/ports       the ports of the last start, reused when still free
#pragma once

#include <string>

#include "pki.h"

namespace gpupool::testenv::detail {

struct Ports {
  int etcd_client = 0;
  int etcd_peer = 0;
  int apiserver = 0;
  int controller_manager = 0;
  int scheduler = 0;
  int kwok = 0;
};

// The ports saved in `path` when they are all still free; otherwise new ones.
Ports choose_ports(const std::string& path);
void save_ports(const std::string& path, const Ports& ports);

struct Layout {
  std::string state_dir;
  std::string bin_dir;
  Pki pki;
  Ports ports;

  std::string path(const std::string& rel) const { return state_dir + "/" + rel; }
  std::string bin(const std::string& name) const { return bin_dir + "/" + name; }
  std::string log(const std::string& component) const { return path("logs/" + component + ".log"); }
  std::string token_file() const { return path("auth/tokens.csv"); }
  std::string kubeconfig(const std::string& component) const { return path("auth/" + component + ".kubeconfig"); }
  std::string admin_kubeconfig() const { return path("kubeconfig"); }
  std::string kwok_config() const { return path("kwok/kwok.yaml"); }
  std::string server() const { return "https://127.0.0.1:" + std::to_string(ports.apiserver); }
};

}  // namespace gpupool::testenv::detail
