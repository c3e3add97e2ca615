#include "webhook_setup.h"

#include <arpa/inet.h>
#include <spdlog/spdlog.h>

#include "gpupool/admission/validating.h"
#include "gpupool/kube/base64.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/kube/resource.h"
#include "gpupool/webhook/certificate_keeper.h"

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

std::optional<webhook::CertificateBundle> bundle_from(const rapidjson::Value& secret) {
  const rapidjson::Value* data = kube::member(secret, "data");
  auto field = [&](const char* key) { return kube::base64_decode(kube::string_of(kube::member(data, key))); };
  auto ca = field("ca.crt"), ca_key = field("ca.key"), crt = field("tls.crt"), key = field("tls.key");
  if (!ca || !ca_key || !crt || !key || ca->empty()) return std::nullopt;
  return webhook::CertificateBundle{*ca, *ca_key, *crt, *key};
}

std::string secret_body(const std::string& ns, const std::string& name, const webhook::CertificateBundle& b) {
  return R"({"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/tls","metadata":{"namespace":)" + quoted(ns) +
         R"(,"name":)" + quoted(name) + R"(,"labels":{"app.kubernetes.io/managed-by":"gpupool-controller"}},"data":{)" +
         R"("ca.crt":)" + quoted(kube::base64_encode(b.ca_cert_pem)) + R"(,"ca.key":)" +
         quoted(kube::base64_encode(b.ca_key_pem)) + R"(,"tls.crt":)" + quoted(kube::base64_encode(b.cert_pem)) +
         R"(,"tls.key":)" + quoted(kube::base64_encode(b.key_pem)) + "}}";
}

}  // namespace

WebhookServer::WebhookServer(kube::Client& client, WebhookOptions options) : client_(client), options_(std::move(options)) {
  // Names the serving certificate must carry.
  webhook::SubjectNames names;
  const auto [svc_ns, svc_name] = split_ref(options_.service);
  if (!options_.url.empty()) {
    const std::string host = url_host(options_.url);
    (is_ip(host) ? names.ip_addresses : names.dns_names).push_back(host);
  } else {
    names.dns_names = {svc_name + "." + svc_ns + ".svc", svc_name + "." + svc_ns + ".svc.cluster.local"};
  }

  // The certificates, kept in the Secret (created, re-issued or replaced as needed).
  const auto [sec_ns, sec_name] = split_ref(options_.secret);
  const kube::ResourceRef secret{kube::core::secrets(), sec_ns, sec_name, ""};
  webhook::CertificateBundle bundle;
  for (int attempt = 0;; ++attempt) {
    std::optional<rapidjson::Document> current;
    try {
      current = client_.get(secret);
    } catch (const kube::ApiError& e) {
      if (!e.is_not_found()) throw;
    }
    const auto kept = webhook::keep_bundle(current ? bundle_from(*current) : std::nullopt, names);
    bundle = kept.bundle;
    if (!kept.changed) break;
    try {
      const std::string body = secret_body(sec_ns, sec_name, bundle);
      if (current) {
        rapidjson::Document updated = kube::parse_json(body);
        updated["metadata"].AddMember(
            "resourceVersion",
            rapidjson::Value(kube::string_at(*current, {"metadata", "resourceVersion"}).c_str(), updated.GetAllocator()),
            updated.GetAllocator());
        client_.update(secret, kube::to_json(updated));
      } else {
        client_.create(secret.with_name(""), body);
      }
      spdlog::info("webhook: certificates in Secret {}: {}", options_.secret, kept.reason);
      break;
    } catch (const kube::ApiError& e) {
      // Another replica wrote it meanwhile: use theirs.
      if (attempt < 3 && (e.is_conflict() || e.is_already_exists())) continue;
      throw;
    }
  }

  {
    std::lock_guard lock(mu_);
    ca_pem_ = bundle.ca_cert_pem;
  }

  // The server.
  webhook::TlsServerOptions so;
  const auto colon = options_.bind_address.rfind(':');
  so.host = colon == std::string::npos || colon == 0 ? "0.0.0.0" : options_.bind_address.substr(0, colon);
  so.port = std::stoi(colon == std::string::npos ? options_.bind_address : options_.bind_address.substr(colon + 1));
  server_ = std::make_unique<webhook::TlsServer>(so, bundle.cert_pem, bundle.key_pem);
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
  for (auto& [path, handler] : options_.handlers) server_->handle_post(path, handler);
  server_->start();
  spdlog::info("webhook: serving /validate on {}:{}", so.host, server_->port());

  // The configuration, by server-side apply.
  const std::string client_config = this->client_config("/validate");
  const std::string body =
      R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":")" +
      std::string(kConfigurationName) + R"("},"webhooks":[{"name":"validate.gpupool.io","clientConfig":)" +
      client_config.substr(0, client_config.size() - 1) + R"(,"caBundle":)" + quoted(kube::base64_encode(bundle.ca_cert_pem)) +
      R"(},"rules":[{"apiGroups":["gpupool.io"],"apiVersions":["v1alpha1"],"operations":["CREATE","UPDATE"],)"
      R"("resources":["gpupools","gpupolicies","tenantquotas"],"scope":"*"}],"failurePolicy":"Fail","sideEffects":"None",)"
      R"("admissionReviewVersions":["v1"],"timeoutSeconds":10,"matchPolicy":"Equivalent"}]})";
  kube::PatchOptions po;
  po.field_manager = "gpupool-controller";
  po.force = true;
  client_.patch(kube::ResourceRef{{"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"}, "",
                                  kConfigurationName, ""},
                kube::PatchType::Apply, body, po);
  spdlog::info("webhook: ValidatingWebhookConfiguration {} points at {}", kConfigurationName,
               options_.url.empty() ? options_.service : options_.url);
}

WebhookServer::~WebhookServer() {
  if (server_) server_->stop();
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
