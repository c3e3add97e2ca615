#include "support/scripted_client.h"

namespace gpupool::test {

kube::RestConfig scripted_config(const ScriptedServer& server, std::chrono::milliseconds timeout) {
  kube::RestConfig c;
  c.server = server.url();
  c.tls.ca_pem = server.ca_pem();
  c.qps = 0;
  c.timeout = timeout;
  c.max_retries = 0;
  return c;
}

}  // namespace gpupool::test
