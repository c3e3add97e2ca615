#include "gpupool/testenv/ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gpupool::testenv {

namespace {

// Binds 127.0.0.1:port (0: any); returns the fd and stores the bound port, or -1.
// SO_REUSEADDR as Go's listeners use it: connections of a previous run left in
// TIME_WAIT do not make a port busy for the components.
int bind_loopback(int port, int* bound) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (port != 0) {  // not for port 0: sockets with it may share a port while none listens
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  if (bound) *bound = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

std::vector<int> pick_free_ports(int n) {
  std::vector<int> fds, ports;
  for (int i = 0; i < n; ++i) {
    int port = 0;
    int fd = bind_loopback(0, &port);
    if (fd < 0) {
      int e = errno;
      for (int f : fds) ::close(f);
      throw std::runtime_error(std::string("cannot bind a loopback port: ") + std::strerror(e));
    }
    fds.push_back(fd);
    ports.push_back(port);
  }
  for (int f : fds) ::close(f);
  return ports;
}

bool port_is_free(int port) {
  if (port <= 0 || port > 65535) return false;
  int fd = bind_loopback(port, nullptr);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

}  // namespace gpupool::testenv
