#include "proxy_state.h"

#include <stdexcept>
#include <utility>

namespace gpupool::faultproxy {
namespace {

netutil::SslCtxPtr serving_context(const Options& o) {
  if (o.cert_pem.empty() && o.key_pem.empty()) return nullptr;
  if (o.cert_pem.empty() || o.key_pem.empty()) {
    throw std::invalid_argument("fault proxy: give both the serving certificate and its key, or neither");
  }
  try {
    return netutil::make_server_tls_context(o.cert_pem, o.key_pem);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(std::string("fault proxy: serving certificate: ") + e.what());
  }
}

netutil::SslCtxPtr upstream_context(const Options& o, const UpstreamTarget& target) {
  if (!target.tls) return nullptr;
  if (o.upstream_ca_pem.empty()) throw std::invalid_argument("fault proxy: an https upstream needs upstream_ca_pem");
  try {
    return netutil::make_client_tls_context(o.upstream_ca_pem);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(std::string("fault proxy: upstream CA: ") + e.what());
  }
}

}  // namespace

ProxyState::ProxyState(Options opts)
    : options(std::move(opts)),
      upstream(parse_upstream_url(options.upstream_url)),
      client_tls(serving_context(options)),
      upstream_tls(upstream_context(options, upstream)),
      plan(options.seed),
      connections(options.max_connections) {}

}  // namespace gpupool::faultproxy
