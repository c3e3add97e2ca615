// The address an HTTP endpoint listens on, written as controller-runtime's
// --metrics-bind-address and --health-probe-bind-address are:
//   ":8080"           every IPv4 interface, port 8080
//   "127.0.0.1:0"     loopback, a port the kernel picks
//   "[::1]:8080"      an IPv6 address, in brackets
//   "localhost:8080"  a name, resolved when binding
//   "0" or ""         disabled
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpupool::metrics {

struct BindAddress {
  std::string host;  // empty: every IPv4 interface (0.0.0.0); IPv6 without brackets
  int port = 0;      // 0: the kernel picks one
};

// std::nullopt for "0" and "" (disabled); throws std::invalid_argument, naming
// the address, for anything that is not [host]:port with a port in 0..65535.
std::optional<BindAddress> parse_bind_address(std::string_view address);

}  // namespace gpupool::metrics
