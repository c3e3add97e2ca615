// Where the fault proxy forwards to, from Options::upstream_url.
#pragma once

#include <string>

namespace gpupool::faultproxy {

struct UpstreamTarget {
  bool tls = true;
  std::string host;  // a name or an IP address (without brackets)
  int port = 443;
};

// "https://HOST[:PORT]" or "http://HOST[:PORT]", IPv6 in brackets, an
// optional trailing "/" and nothing else. Throws std::invalid_argument.
UpstreamTarget parse_upstream_url(const std::string& url);

}  // namespace gpupool::faultproxy
