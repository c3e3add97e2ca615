// The controller's admission webhook server (issue 13): its certificates kept
// in a Secret (webhook/stored_certificates.h), the HTTPS server
// (webhook/tls_server.h) serving /validate (admission/validating.h) and
// /validate-agent-eviction (admission/agent_eviction.h), and the
// ValidatingWebhookConfiguration `gpupool-validating-webhook` with one webhook
// for each, pointing at it with the CA as caBundle: at --webhook-url outside a
// cluster (as envtest does), else at the Service --webhook-service.
//
// failurePolicy Fail: an object the controller cannot check is not stored
// (a GPUPool the planner would refuse could otherwise reach the nodes), and
// an agent's eviction the controller cannot check is refused (the agent's
// drain retries); only gpupool.io objects and the agents' evictions depend on
// it, so with the controller down the rest of the cluster is untouched.
//
// Rotation while running: a thread re-reads the Secret every check_interval
// (and at once when this replica becomes the leader; a check that failed or
// met a conflict is tried again after 1 s, doubling up to check_interval), and
//   - every replica serves what the Secret holds (set_certificate: new
//     handshakes get it, connections under way keep theirs), and follows its
//     caBundle (ca_bundle(), the on_ca_bundle_change callbacks);
//   - the leader alone writes: the Secret's next state
//     (webhook/stored_certificates.h), as a PUT with the resourceVersion it
//     read (on a conflict it reads again at the next check, soon), then the
//     configuration's caBundle when the CAs it must hold changed. A replica
//     that just became leader first writes the caBundle the Secret calls for
//     and decides nothing more until its next check.
// A CA rotation, with overlap = 2 x check_interval (T = the step's time):
//   T      step 1: Secret ca.crt = new CA, ca-previous.crt = old CA, tls.crt
//          still the old CA's; the leader writes caBundle = new + old.
//   T+o    step 2: tls.crt issued by the new CA, served by the leader at
//          once, by the others within a check; caBundle unchanged.
//   T+2o   step 3: ca-previous.crt dropped; caBundle = new CA alone.
// So the caBundle trusts whatever any replica serves at every moment, and
// the API server has had o to see the grown caBundle before step 2. The
// Secret dates the last step in its annotation
// gpupool.io/webhook-ca-rotation-step-at, so a new leader carries on.
//
// Startup: the leader (or every replica, without leader election) writes as
// above before serving. Another replica writes nothing but the Secret's
// creation when it does not exist (a create is atomic: of replicas starting
// together one wins and the others serve its certificates; without it a
// fresh install with --leader-elect would wait for a leader that is only
// elected once this constructor returns); a Secret it cannot serve it waits
// for, up to startup_timeout.
//
// With cert_source == secret (cert-manager's Certificate writes the Secret:
// tls.crt, tls.key, ca.crt) the controller never writes the Secret: every
// replica waits up to startup_timeout for it, serves it and follows its
// changes as above; ca.crt (when present) is the caBundle, which the leader
// writes (harmless next to cert-manager's CA injector). The overlap of CAs
// during a CA rotation is then cert-manager's (or the injector's) concern.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gpupool/admission/admission_review.h"
#include "gpupool/gpu/catalog.h"
#include "gpupool/gpu/mig_parted.h"
#include "gpupool/kube/client.h"
#include "gpupool/webhook/stored_certificates.h"
#include "gpupool/webhook/tls_server.h"

namespace gpupool::controller {

// Where the serving certificate comes from.
enum class CertSource {
  self,    // made, kept and rotated by the controller in the Secret
  secret,  // read from the Secret, written by someone else (cert-manager)
};

struct WebhookOptions {
  std::string bind_address;  // host:port; empty or "0": no webhook server
  std::string url;           // https://host:port base outside a cluster; empty: the Service
  std::string service = "gpupool-system/gpupool-webhook";  // NAMESPACE/NAME, port 443
  std::string secret = "gpupool-system/gpupool-webhook-tls";  // NAMESPACE/NAME of the certificates
  const gpu::Catalog* catalog = nullptr;
  const gpu::MigPartedConfig* mig_parted = nullptr;
  // More paths served next to /validate (the pod gate's /mutate-pods).
  std::map<std::string, webhook::PostHandler> handlers;

  CertSource cert_source = CertSource::self;
  // Validities of what the controller makes (serving 1 year, CA 5 years by
  // default). The backdate of notBefore is cut to a tenth of the shorter one,
  // so that short validities (tests) still rotate after two thirds.
  webhook::CertificateOptions certificates;
  // How often the Secret is re-read (and rotation decided).
  std::chrono::milliseconds check_interval{std::chrono::minutes(1)};
  // Whether this replica leads now (the manager's leadership); empty: always.
  // Called often: must be cheap and thread-safe.
  std::function<bool()> is_leader;
  // How long a replica that must not write waits for a Secret it can serve.
  std::chrono::milliseconds startup_timeout{std::chrono::minutes(2)};
};

// A Go duration as a flag gives it ("90s", "10m", "8760h"), in whole
// seconds, at least 1 s. Throws std::invalid_argument naming the text.
std::chrono::seconds parse_flag_duration(const std::string& text);

class WebhookServer {
 public:
  // Keeps the certificates, starts serving, registers the configuration (as
  // the file comment says), and starts the rotation thread. Throws with a
  // message naming the step when one fails.
  WebhookServer(kube::Client& client, WebhookOptions options);
  // Stops the rotation thread (at once, even mid-wait), then the server.
  ~WebhookServer();
  WebhookServer(const WebhookServer&) = delete;
  WebhookServer& operator=(const WebhookServer&) = delete;
  int port() const;

  // The CAs (PEM, concatenated: two during a CA rotation) the API server must
  // trust: what the webhook configurations written elsewhere (the pod gate's)
  // put in caBundle. Each callback runs (on the rotation thread, no lock
  // held) whenever it changes, as each step of a CA rotation does.
  std::string ca_bundle() const;
  void on_ca_bundle_change(std::function<void()> callback);

  // The base URL of the server's paths in a webhook's clientConfig:
  // {"url": "<url>/PATH"} outside a cluster, else the Service's.
  std::string client_config(const std::string& path) const;

 private:
  bool leading() const { return !options_.is_leader || options_.is_leader(); }
  std::optional<webhook::StoredCertificates> read_secret();
  // One check: read, (leader) write the next state and the caBundle, serve.
  bool check(bool leader);  // false: not settled (a conflict), check again soon
  // The leader's write of the Secret's next state (create when it was not
  // there), into `current`; false when another replica wrote first.
  bool write_next(std::optional<webhook::StoredCertificates>& current);
  void apply_configuration(const std::string& ca_bundle);
  // An agent's eviction (admission/agent_eviction.h), with the pod read from the API server.
  admission::AdmissionResponse review_agent_eviction(const admission::AdmissionRequest& request);
  // Serves `stored` and publishes its caBundle (callbacks when it changed).
  void serve(const webhook::StoredCertificates& stored);
  void run_rotation();

  kube::Client& client_;
  WebhookOptions options_;
  webhook::SubjectNames names_;
  std::unique_ptr<webhook::TlsServer> server_;
  mutable std::mutex mu_;
  std::string ca_pem_;
  std::vector<std::function<void()>> ca_callbacks_;

  // Only the constructor, then the rotation thread, touch these.
  std::string resource_version_;               // of the Secret last read
  std::string served_cert_pem_, served_key_pem_;
  std::optional<std::string> applied_ca_bundle_;  // by this replica, while leading

  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread rotation_;
};

}  // namespace gpupool::controller
