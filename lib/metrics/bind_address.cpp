#include "gpupool/metrics/bind_address.h"

#include <charconv>
#include <stdexcept>

namespace gpupool::metrics {
namespace {

[[noreturn]] void reject(std::string_view address, std::string_view why) {
  throw std::invalid_argument("invalid bind address \"" + std::string(address) + "\": " + std::string(why));
}

}  // namespace

std::optional<BindAddress> parse_bind_address(std::string_view address) {
  if (address.empty() || address == "0") return std::nullopt;
  const auto colon = address.rfind(':');
  if (colon == std::string_view::npos) reject(address, "expected host:port or :port");
  std::string_view host = address.substr(0, colon);
  const std::string_view port_text = address.substr(colon + 1);

  if (host.starts_with('[')) {
    if (!host.ends_with(']') || host.size() < 3) reject(address, "unbalanced brackets around the IPv6 address");
    host = host.substr(1, host.size() - 2);
  } else if (host.find_first_of(":[]") != std::string_view::npos) {
    reject(address, "an IPv6 address must be in brackets");
  }

  int port = -1;
  const auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || error != std::errc() || end != port_text.data() + port_text.size() || port < 0 ||
      port > 65535) {
    reject(address, "the port must be a number from 0 to 65535");
  }
  return BindAddress{std::string(host), port};
}

}  // namespace gpupool::metrics
