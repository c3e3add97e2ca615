#include "webhook_setup.h"

#include <arpa/inet.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <ctime>

#include "gpupool/admission/agent_eviction.h"
#include "gpupool/admission/validating.h"
#include "gpupool/kube/backoff.h"
#include "gpupool/kube/base64.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/kube/resource.h"
#include "gpupool/api/duration.h"
#include "gpupool/common/rfc3339.h"
#include "gpupool/metrics/registry.h"

namespace gpupool::controller {
namespace {

constexpr const char* kConfigurationName = "gpupool-validating-webhook";

std::pair<std::string, std::string> split_ref(const std::string& ref) {
  const auto slash = ref.find('/');
  if (slash == std::string::npos) throw std::invalid_argument("expected NAMESPACE/NAME, got \"" + ref + "\"");
  return {ref.substr(0, slash), ref.substr(slash + 1)};
}

// The host of https://HOST[:PORT][/...].
std::string url_host(const std::string& url) {
  std::string rest = url.substr(url.find("://") == std::string::npos ? 0 : url.find("://") + 3);
  rest = rest.substr(0, rest.find('/'));
  if (!rest.empty() && rest.front() == '[') return rest.substr(1, rest.find(']') - 1);
  return rest.substr(0, rest.find(':'));
}

bool is_ip(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

std::string quoted(const std::string& s) {
  rapidjson::Document d;
  rapidjson::Value v(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), d.GetAllocator());
  return kube::to_json(v);
}

// The Secret's keys and the annotation that dates a CA rotation's last step.
constexpr const char* kPreviousCaKey = "ca-previous.crt";
constexpr const char* kStepAnnotation = "gpupool.io/webhook-ca-rotation-step-at";
// How often a replica waiting to lead asks whether it does now.
constexpr std::chrono::seconds kLeaderPoll{1};

webhook::StoredCertificates stored_from(const rapidjson::Value& secret) {
  const rapidjson::Value* data = kube::member(secret, "data");
  auto field = [&](const char* key) {
    return kube::base64_decode(kube::string_of(kube::member(data, key))).value_or(std::string());
  };
  webhook::StoredCertificates s;
  s.bundle = {field("ca.crt"), field("ca.key"), field("tls.crt"), field("tls.key")};
  s.previous_ca_pem = field(kPreviousCaKey);
  const std::string step = kube::string_of(kube::member(kube::member(kube::member(secret, "metadata"), "annotations"), kStepAnnotation));
  if (auto t = parse_rfc3339(step)) s.step_at = std::chrono::time_point_cast<webhook::Clock::duration>(to_system_clock(*t));
  return s;
}

std::string rfc3339(webhook::Clock::time_point t) {
  const std::time_t seconds = webhook::Clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return out;
}

std::string secret_body(const std::string& ns, const std::string& name, const webhook::StoredCertificates& s) {
  const webhook::CertificateBundle& b = s.bundle;
  auto entry = [](const char* key, const std::string& pem) {
    return "," + quoted(key) + ":" + quoted(kube::base64_encode(pem));
  };
  std::string annotations;
  if (s.step_at) annotations = R"(,"annotations":{)" + quoted(kStepAnnotation) + ":" + quoted(rfc3339(*s.step_at)) + "}";
  return R"({"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/tls","metadata":{"namespace":)" + quoted(ns) +
         R"(,"name":)" + quoted(name) + R"(,"labels":{"app.kubernetes.io/managed-by":"gpupool-controller"})" +
         annotations + R"(},"data":{"ca.crt":)" + quoted(kube::base64_encode(b.ca_cert_pem)) +
         entry("ca.key", b.ca_key_pem) + entry("tls.crt", b.cert_pem) + entry("tls.key", b.key_pem) +
         (s.previous_ca_pem.empty() ? std::string() : entry(kPreviousCaKey, s.previous_ca_pem)) + "}}";
}

// Whether this replica can serve what the Secret holds (it may be due for rotation).
bool can_serve(const webhook::StoredCertificates& s, CertSource source) {
  if (source == CertSource::self) return webhook::servable(s);
  try {
    return webhook::key_matches_certificate(s.bundle.cert_pem, s.bundle.key_pem);
  } catch (const webhook::CertificateError&) {
    return false;
  }
}

}  // namespace

std::chrono::seconds parse_flag_duration(const std::string& text) {
  const auto parsed = api::parse_duration(text);
  if (!parsed) throw std::invalid_argument(parsed.error);
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(*parsed.value);
  if (seconds < std::chrono::seconds(1)) throw std::invalid_argument("duration \"" + text + "\" is shorter than 1s");
  return seconds;
}

WebhookServer::WebhookServer(kube::Client& client, WebhookOptions options) : client_(client), options_(std::move(options)) {
  if (options_.check_interval <= std::chrono::milliseconds::zero()) {
    throw std::invalid_argument("webhook: the certificate check interval must be positive");
  }
  auto& co = options_.certificates;
  co.backdate = std::min(co.backdate, std::min(co.ca_validity, co.serving_validity) / 10);

  // Names the serving certificate must carry.
  const auto [svc_ns, svc_name] = split_ref(options_.service);
  if (!options_.url.empty()) {
    const std::string host = url_host(options_.url);
    (is_ip(host) ? names_.ip_addresses : names_.dns_names).push_back(host);
  } else {
    names_.dns_names = {svc_name + "." + svc_ns + ".svc", svc_name + "." + svc_ns + ".svc.cluster.local"};
  }

  // The certificates, kept in the Secret: the leader writes what it should
  // hold now; another replica only creates it when missing.
  const bool self = options_.cert_source == CertSource::self;
  const bool leader = leading();
  std::optional<webhook::StoredCertificates> current;
  for (int attempt = 0; self; ++attempt) {
    current = read_secret();
    if (current && !leader) break;
    if (write_next(current)) break;
    // Another replica wrote it meanwhile: use theirs.
    if (attempt == 3) throw std::runtime_error("webhook: the Secret " + options_.secret + " keeps changing under this replica");
  }
  if (!self) current = read_secret();
  const auto deadline = std::chrono::steady_clock::now() + options_.startup_timeout;
  while (!current || !can_serve(*current, options_.cert_source)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      throw std::runtime_error(
          "webhook: the Secret " + options_.secret + (current ? " holds no certificate this replica can serve" : " does not exist") +
          " after " + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(options_.startup_timeout).count()) +
          " s; " + (self ? "the leader writes it" : "it is written by cert-manager's Certificate (--webhook-cert-source=secret)"));
    }
    spdlog::info("webhook: waiting for the Secret {} ({})", options_.secret, self ? "the leader writes it" : "cert-manager writes it");
    std::this_thread::sleep_for(std::chrono::seconds(1));
    current = read_secret();
  }

  // The server.
  webhook::TlsServerOptions so;
  const auto colon = options_.bind_address.rfind(':');
  so.host = colon == std::string::npos || colon == 0 ? "0.0.0.0" : options_.bind_address.substr(0, colon);
  so.port = std::stoi(colon == std::string::npos ? options_.bind_address : options_.bind_address.substr(colon + 1));
  so.on_connection = [&accepted = metrics::default_registry()
                                      .counter("gpupool_webhook_connections_total",
                                               "Connections the admission webhook server accepted (kube-apiserver "
                                               "keeps its connections: a steady climb means they are not reused)")
                                      .with({})] { accepted.inc(); };
  server_ = std::make_unique<webhook::TlsServer>(so, current->bundle.cert_pem, current->bundle.key_pem);
  serve(*current);
  admission::ValidatingOptions vo;
  vo.catalog = options_.catalog;
  vo.schemas = &schema::CrdSchemaSet::builtin();
  vo.mig_parted = options_.mig_parted;
  server_->handle_post("/validate", [vo](const webhook::HttpRequest& r) {
    std::string error;
    auto request = admission::parse_admission_review(r.body, error);
    if (!request) return webhook::HttpResponse{400, "text/plain", error};
    return webhook::HttpResponse{200, "application/json", admission::admission_review_response(admission::validate_request(*request, vo))};
  });
  server_->handle_post(admission::kAgentEvictionPath, [this](const webhook::HttpRequest& r) {
    std::string error;
    auto request = admission::parse_admission_review(r.body, error);
    if (!request) return webhook::HttpResponse{400, "text/plain", error};
    return webhook::HttpResponse{200, "application/json", admission::admission_review_response(review_agent_eviction(*request))};
  });
  for (auto& [path, handler] : options_.handlers) server_->handle_post(path, handler);
  server_->start();
  spdlog::info("webhook: serving /validate on {}:{}", so.host, server_->port());

  if (leader) apply_configuration(current->trusted_pem());
  rotation_ = std::thread([this] { run_rotation(); });
}

WebhookServer::~WebhookServer() {
  {
    std::lock_guard lock(stop_mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (rotation_.joinable()) rotation_.join();
  if (server_) server_->stop();
}

std::optional<webhook::StoredCertificates> WebhookServer::read_secret() {
  const auto [sec_ns, sec_name] = split_ref(options_.secret);
  try {
    const rapidjson::Document secret = client_.get(kube::ResourceRef{kube::core::secrets(), sec_ns, sec_name, ""});
    resource_version_ = kube::string_at(secret, {"metadata", "resourceVersion"});
    return stored_from(secret);
  } catch (const kube::ApiError& e) {
    if (!e.is_not_found()) throw;
    resource_version_.clear();
    return std::nullopt;
  }
}

bool WebhookServer::write_next(std::optional<webhook::StoredCertificates>& current) {
  const auto overlap = std::chrono::ceil<std::chrono::seconds>(2 * options_.check_interval);
  webhook::NextCertificates next = webhook::next_certificates(current, names_, options_.certificates, overlap);
  if (!next.changed) return true;
  const auto [sec_ns, sec_name] = split_ref(options_.secret);
  const kube::ResourceRef secret{kube::core::secrets(), sec_ns, sec_name, ""};
  try {
    rapidjson::Document body = kube::parse_json(secret_body(sec_ns, sec_name, next.stored));
    rapidjson::Document written;
    if (!resource_version_.empty()) {
      body["metadata"].AddMember("resourceVersion", rapidjson::Value(resource_version_.c_str(), body.GetAllocator()),
                                 body.GetAllocator());
      written = client_.update(secret, kube::to_json(body));
    } else {
      written = client_.create(secret.with_name(""), kube::to_json(body));
    }
    resource_version_ = kube::string_at(written, {"metadata", "resourceVersion"});
  } catch (const kube::ApiError& e) {
    if (!e.is_conflict() && !e.is_already_exists()) throw;
    spdlog::info("webhook: the Secret {} changed while being written (another replica); read again", options_.secret);
    return false;
  }
  spdlog::info("webhook: certificates in Secret {}: {}", options_.secret, next.reason);
  current = std::move(next.stored);
  return true;
}

void WebhookServer::apply_configuration(const std::string& ca_bundle) {
  const std::string ca_field = ca_bundle.empty() ? std::string() : R"(,"caBundle":)" + quoted(kube::base64_encode(ca_bundle));
  auto with_ca = [&](const std::string& client_config) { return client_config.substr(0, client_config.size() - 1) + ca_field + "}"; };
  const std::string body =
      R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":")" +
      std::string(kConfigurationName) + R"("},"webhooks":[{"name":"validate.gpupool.io","clientConfig":)" +
      with_ca(client_config("/validate")) +
      R"(,"rules":[{"apiGroups":["gpupool.io"],"apiVersions":["v1alpha1"],"operations":["CREATE","UPDATE"],)"
      R"("resources":["gpupools","gpupolicies","tenantquotas"],"scope":"*"}],"failurePolicy":"Fail","sideEffects":"None",)"
      R"("admissionReviewVersions":["v1"],"timeoutSeconds":10,"matchPolicy":"Equivalent"},)" +
      admission::agent_eviction_webhook(with_ca(client_config(admission::kAgentEvictionPath))) + "]}";
  kube::PatchOptions po;
  po.field_manager = "gpupool-controller";
  po.force = true;
  client_.patch(kube::ResourceRef{{"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"}, "",
                                  kConfigurationName, ""},
                kube::PatchType::Apply, body, po);
  if (!applied_ca_bundle_) {
    spdlog::info("webhook: ValidatingWebhookConfiguration {} points at {}", kConfigurationName,
                 options_.url.empty() ? options_.service : options_.url);
  } else if (*applied_ca_bundle_ != ca_bundle) {
    std::size_t cas = 0;
    for (auto at = ca_bundle.find("BEGIN CERTIFICATE"); at != std::string::npos; at = ca_bundle.find("BEGIN CERTIFICATE", at + 1)) ++cas;
    spdlog::info("webhook: ValidatingWebhookConfiguration {}: caBundle now holds {} CA(s)", kConfigurationName, cas);
  }
  applied_ca_bundle_ = ca_bundle;
}

void WebhookServer::serve(const webhook::StoredCertificates& stored) {
  if (stored.bundle.cert_pem != served_cert_pem_ || stored.bundle.key_pem != served_key_pem_) {
    const bool first = served_cert_pem_.empty();
    if (!first) server_->set_certificate(stored.bundle.cert_pem, stored.bundle.key_pem);
    served_cert_pem_ = stored.bundle.cert_pem;
    served_key_pem_ = stored.bundle.key_pem;
    if (!first) spdlog::info("webhook: now serving certificate {}", server_->certificate_serial());
  }
  const std::string ca = stored.trusted_pem();
  std::vector<std::function<void()>> callbacks;
  {
    std::lock_guard lock(mu_);
    if (ca == ca_pem_) return;
    ca_pem_ = ca;
    callbacks = ca_callbacks_;
  }
  for (const auto& callback : callbacks) {
    try {
      callback();
    } catch (const std::exception& e) {
      spdlog::warn("webhook: a caBundle change callback failed: {}", e.what());
    }
  }
}

bool WebhookServer::check(bool leader) {
  std::optional<webhook::StoredCertificates> current = read_secret();
  if (!current && (!leader || options_.cert_source != CertSource::self)) {
    spdlog::warn("webhook: the Secret {} is gone; serving the certificates last read", options_.secret);
    return true;
  }
  if (leader) {
    // A caBundle this replica has not written yet (it just became leader) goes
    // out first; the next state waits for the next check, so that the API
    // server has it before a step that relies on it.
    if (current && can_serve(*current, options_.cert_source) && applied_ca_bundle_ != current->trusted_pem()) {
      apply_configuration(current->trusted_pem());
    } else if (options_.cert_source == CertSource::self) {
      if (!write_next(current)) return false;  // a conflict: read again soon
      if (applied_ca_bundle_ != current->trusted_pem()) apply_configuration(current->trusted_pem());
    }
  }
  if (!can_serve(*current, options_.cert_source)) {
    spdlog::warn("webhook: the Secret {} holds no certificate this replica can serve; serving the certificates last read",
                 options_.secret);
    return true;
  }
  serve(*current);
  return true;
}

void WebhookServer::run_rotation() {
  using Steady = std::chrono::steady_clock;
  bool was_leader = leading();
  auto next = Steady::now() + options_.check_interval;
  // A check that failed (the API server away, a conflict) is tried again
  // soon, not a whole check_interval later: a new leader's configuration
  // write must not leave the API server calling the old leader for minutes.
  kube::Backoff retry(std::min<kube::Backoff::Duration>(std::chrono::seconds(1), options_.check_interval),
                      options_.check_interval);
  std::unique_lock lock(stop_mu_);
  while (!stopping_) {
    const auto wake = options_.is_leader ? std::min<Steady::time_point>(next, Steady::now() + kLeaderPoll) : next;
    stop_cv_.wait_until(lock, wake, [this] { return stopping_; });
    if (stopping_) break;
    const bool leader = leading();
    const bool became_leader = leader && !was_leader;
    was_leader = leader;
    if (!leader) applied_ca_bundle_.reset();  // written again on becoming leader
    if (!became_leader && Steady::now() < next) continue;
    lock.unlock();
    auto wait = std::chrono::duration_cast<Steady::duration>(options_.check_interval);
    try {
      if (check(leader)) {
        retry.reset();
      } else {
        wait = retry.next();
      }
    } catch (const std::exception& e) {
      wait = retry.next();
      spdlog::warn("webhook: certificate check failed (next in {} ms): {}",
                   std::chrono::duration_cast<std::chrono::milliseconds>(wait).count(), e.what());
    }
    lock.lock();
    next = Steady::now() + wait;
  }
}

admission::AdmissionResponse WebhookServer::review_agent_eviction(const admission::AdmissionRequest& request) {
  std::optional<kube::PodProjection> pod;
  if (admission::is_agent_user(request.username) && request.sub_resource == "eviction") {
    try {
      pod = kube::project_pod(kube::to_json(client_.get(kube::ResourceRef{kube::core::pods(), request.ns, request.name, ""})));
    } catch (const kube::ApiError& e) {
      if (!e.is_not_found()) {
        admission::AdmissionResponse r;
        r.uid = request.uid;
        r.allowed = false;
        r.code = 503;
        r.reason = "ServiceUnavailable";
        r.message = "gpupool-agent eviction of " + request.ns + "/" + request.name + ": the pod could not be read: " + e.what();
        return r;
      }
    }
  }
  admission::AdmissionResponse r = admission::decide_agent_eviction(request, pod);
  if (!r.allowed) spdlog::warn("webhook: refused an agent's eviction: {}", r.message);
  return r;
}

int WebhookServer::port() const { return server_ ? server_->port() : 0; }

std::string WebhookServer::ca_bundle() const {
  std::lock_guard lock(mu_);
  return ca_pem_;
}

void WebhookServer::on_ca_bundle_change(std::function<void()> callback) {
  std::lock_guard lock(mu_);
  ca_callbacks_.push_back(std::move(callback));
}

std::string WebhookServer::client_config(const std::string& path) const {
  if (!options_.url.empty()) return R"({"url":)" + quoted(options_.url + path) + "}";
  const auto [svc_ns, svc_name] = split_ref(options_.service);
  return R"({"service":{"namespace":)" + quoted(svc_ns) + R"(,"name":)" + quoted(svc_name) + R"(,"path":)" + quoted(path) +
         R"(,"port":443}})";
}

}  // namespace gpupool::controller
