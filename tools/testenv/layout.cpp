#include "layout.h"

#include <map>
#include <sstream>

#include "files.h"
#include "gpupool/testenv/ports.h"

namespace gpupool::testenv::detail {

Ports choose_ports(const std::string& path) {
  if (file_exists(path)) {
    std::map<std::string, int> saved;
    std::istringstream in(read_file(path));
    std::string line;
    while (std::getline(in, line)) {
      auto eq = line.find('=');
      if (eq == std::string::npos) continue;
      try {
        saved[line.substr(0, eq)] = std::stoi(line.substr(eq + 1));
      } catch (const std::exception&) {
      }
    }
    Ports p{saved["etcd_client"], saved["etcd_peer"], saved["apiserver"],
            saved["controller_manager"], saved["scheduler"], saved["kwok"]};
    bool all_free = true;
    for (int port : {p.etcd_client, p.etcd_peer, p.apiserver, p.controller_manager, p.scheduler, p.kwok}) {
      all_free = all_free && port_is_free(port);
    }
    if (all_free) return p;
  }
  auto fresh = pick_free_ports(6);
  return Ports{fresh[0], fresh[1], fresh[2], fresh[3], fresh[4], fresh[5]};
}

void save_ports(const std::string& path, const Ports& p) {
  std::string out;
  out += "etcd_client=" + std::to_string(p.etcd_client) + "\n";
  out += "etcd_peer=" + std::to_string(p.etcd_peer) + "\n";
  out += "apiserver=" + std::to_string(p.apiserver) + "\n";
  out += "controller_manager=" + std::to_string(p.controller_manager) + "\n";
  out += "scheduler=" + std::to_string(p.scheduler) + "\n";
  out += "kwok=" + std::to_string(p.kwok) + "\n";
  write_file(path, out);
}

}  // namespace gpupool::testenv::detail
