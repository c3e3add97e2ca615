// The controller's admission webhook server (issue 13): its certificates kept
// in a Secret (webhook/certificate_keeper.h), the HTTPS server
// (webhook/tls_server.h) serving /validate (admission/validating.h), and the
// ValidatingWebhookConfiguration `gpupool-validating-webhook` pointing at it
// with the CA as caBundle: at --webhook-url outside a cluster (as envtest
// does), else at the Service --webhook-service.
//
// failurePolicy Fail: an object the controller cannot check is not stored
// (a GPUPool the planner would refuse could otherwise reach the nodes); only
// gpupool.io objects depend on it, so with the controller down the rest of
// the cluster is untouched.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "gpupool/gpu/catalog.h"
#include "gpupool/gpu/mig_parted.h"
#include "gpupool/kube/client.h"
#include "gpupool/webhook/tls_server.h"

namespace gpupool::controller {

struct WebhookOptions {
  std::string bind_address;  // host:port; empty or "0": no webhook server
  std::string url;           // https://host:port base outside a cluster; empty: the Service
  std::string service = "gpupool-system/gpupool-webhook";  // NAMESPACE/NAME, port 443
  std::string secret = "gpupool-system/gpupool-webhook-tls";  // NAMESPACE/NAME of the certificates
  const gpu::Catalog* catalog = nullptr;
  const gpu::MigPartedConfig* mig_parted = nullptr;
  // More paths served next to /validate (the pod gate's /mutate-pods).
  std::map<std::string, webhook::PostHandler> handlers;
};

class WebhookServer {
 public:
  // Keeps the certificates, starts serving, registers the configuration.
  // Throws with a message naming the step when one fails.
  WebhookServer(kube::Client& client, WebhookOptions options);
  ~WebhookServer();
  int port() const;

  // The CA (PEM) the API server must trust: what the webhook configurations
  // written elsewhere (the pod gate's) put in caBundle. `on_change` runs
  // (on any thread) whenever it changes, as a CA rotation does.
  std::string ca_bundle() const;
  void on_ca_bundle_change(std::function<void()> callback);

  // The base URL of the server's paths in a webhook's clientConfig:
  // {"url": "<url>/PATH"} outside a cluster, else the Service's.
  std::string client_config(const std::string& path) const;

 private:
  kube::Client& client_;
  WebhookOptions options_;
  std::unique_ptr<webhook::TlsServer> server_;
  mutable std::mutex mu_;
  std::string ca_pem_;
  std::vector<std::function<void()>> ca_callbacks_;
};

}  // namespace gpupool::controller
