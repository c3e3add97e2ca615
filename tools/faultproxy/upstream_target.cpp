#include "upstream_target.h"

#include <stdexcept>

#include "gpupool/netutil/tcp.h"

namespace gpupool::faultproxy {

UpstreamTarget parse_upstream_url(const std::string& url) {
  UpstreamTarget t;
  std::string rest;
  if (url.rfind("https://", 0) == 0) {
    rest = url.substr(8);
  } else if (url.rfind("http://", 0) == 0) {
    t.tls = false;
    t.port = 80;
    rest = url.substr(7);
  } else {
    throw std::invalid_argument("upstream URL '" + url + "': must start with https:// or http://");
  }
  if (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.empty() || rest.find_first_of("/?#@") != std::string::npos) {
    throw std::invalid_argument("upstream URL '" + url + "': expected scheme://HOST[:PORT] and nothing else");
  }
  const bool bracketed = rest.front() == '[';
  const auto colon = rest.rfind(':');
  const bool has_port = colon != std::string::npos && (!bracketed || rest[colon - 1] == ']') &&
                        (bracketed || rest.find(':') == colon);
  if (has_port) {
    netutil::HostPort hp = netutil::parse_host_port(rest);
    t.host = hp.host;
    t.port = hp.port;
  } else if (bracketed && rest.back() == ']') {
    t.host = rest.substr(1, rest.size() - 2);
  } else {
    t.host = rest;
  }
  if (t.host.empty() || t.port == 0) throw std::invalid_argument("upstream URL '" + url + "': no host or port");
  return t;
}

}  // namespace gpupool::faultproxy
