// The webhook's certificates rotating while the API server keeps calling it,
// on the real control plane: with a serving certificate valid 9 s and a CA
// valid 36 s, checked every second, the controller re-issues the serving
// certificate several times and replaces the CA once (new CA trusted, then
// served, then the old one dropped), and not one request that goes through
// the webhook (failurePolicy Fail: a TLS failure is an error) fails.
// Leader election is on, so the leader's path is the one taken. And with
// --webhook-cert-source=secret, the controller serves and follows a Secret
// it does not write (as cert-manager's Certificate writes it).
#include <gtest/gtest.h>

#include <set>

#include "gpupool/kube/base64.h"
#include "gpupool/webhook/certificates.h"
#include "support/fleet_fixture.h"

namespace gpupool::test {
namespace {

const kube::ResourceRef kPolicies{{"gpupool.io", "v1alpha1", "gpupolicies"}, "", "", ""};
const kube::ResourceRef kSecret{kube::core::secrets(), "gpupool-system", "gpupool-webhook-tls", ""};
const kube::ResourceRef kConfiguration{
    {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"}, "", "gpupool-validating-webhook", ""};

// A pool the webhook refuses (2 x 4g.40gb do not fit an A100's 7 slices).
const char* kInvalidPool =
    R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUPool","metadata":{"name":"rotation-invalid"},"spec":{)"
    R"("nodeSelector":{"matchLabels":{"gpupool.io/gpu-model":"a100-sxm4-80gb"}},)"
    R"("partitioning":{"nvidia":{"strategy":"mixed","devices":[{"profiles":{"4g.40gb":2}}]}}}})";

std::string policy(const std::string& name) {
  return R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUPolicy","metadata":{"name":")" + name +
         R"("},"spec":{"quota":{}}})";
}

int certificates_in(const std::string& pem) {
  int n = 0;
  for (auto at = pem.find("BEGIN CERTIFICATE"); at != std::string::npos; at = pem.find("BEGIN CERTIFICATE", at + 1)) ++n;
  return n;
}

class WebhookRotationTest : public FleetTest {
 protected:
  void TearDown() override {
    cluster().kubectl_result({"delete", "gpupolicy", policy_name_, "--ignore-not-found", "--wait=false"});
    FleetTest::TearDown();
  }
  // Whether the webhook refuses the invalid pool (a dry run): it is up and trusted.
  bool denied() {
    try {
      client_->create(kPools, kInvalidPool, {.field_manager = "", .dry_run = true});
      last_ = "accepted";
      return false;
    } catch (const kube::ApiError& e) {
      last_ = e.what();
      return last_.find("denied the request") != std::string::npos;
    }
  }
  [[nodiscard]] bool wait_webhook_answers() {
    const bool ok = testenv::wait_until([&] { return denied(); }, 60s);
    if (!ok) ADD_FAILURE() << last_ << "\n" << log_tail("controller.log");
    return ok;
  }
  std::string last_;
  const std::string policy_name_ = "rotation-test";
};

TEST_F(WebhookRotationTest, RotatesTheServingCertificateAndTheCaWithoutFailingARequest) {
  cluster().kubectl_result({"delete", "secret", "-n", "gpupool-system", "gpupool-webhook-tls", "--ignore-not-found"});
  // With leader election: the replica starts as a follower (it only creates
  // the missing Secret) and writes the configuration once it leads.
  start_controller_with_webhook({"--webhook-cert-validity", "9s", "--webhook-ca-validity", "36s",
                                 "--webhook-cert-check-interval", "1s", "--leader-elect",
                                 "--leader-election-namespace", "gpupool-system"});

  // The webhook answers once the invalid pool is refused by it.
  ASSERT_TRUE(wait_webhook_answers());
  client_->create(kPolicies, policy(policy_name_));

  // What the Secret and the configuration held, as observed between requests.
  std::set<std::string> serving, cas;
  std::string first_ca;
  bool overlap_seen = false, settled_on_new_ca = false;
  std::size_t serving_at_settle = 0;
  auto observe = [&] {
    const auto secret = client_->get(kSecret);
    serving.insert(str(secret, {"data", "tls.crt"}));
    const std::string ca = str(secret, {"data", "ca.crt"});
    cas.insert(ca);
    if (first_ca.empty()) first_ca = ca;
    const auto configuration = client_->get(kConfiguration);
    const auto* hooks = at(configuration, {"webhooks"});
    ASSERT_TRUE(hooks != nullptr && hooks->IsArray() && !hooks->Empty());
    const std::string bundle = kube::base64_decode(str((*hooks)[0], {"clientConfig", "caBundle"})).value_or("");
    if (certificates_in(bundle) == 2) overlap_seen = true;
    if (!settled_on_new_ca && overlap_seen && ca != first_ca && certificates_in(bundle) == 1 &&
        bundle == kube::base64_decode(ca).value_or("")) {
      settled_on_new_ca = true;
      serving_at_settle = serving.size();
    }
  };

  // Requests through the webhook: dry-run creates and real updates (both
  // allowed), and now and then the invalid pool (refused by the webhook
  // itself, so it is being called). Until the CA has been replaced and the
  // serving certificate changed at least 3 times, and once more after that.
  int requests = 0, refused = 0;
  std::vector<std::string> failures;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + 80s;
  auto done = [&] { return settled_on_new_ca && serving.size() >= 4 && serving.size() > serving_at_settle; };
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < 10; ++i, ++requests) {
      try {
        if (i == 0) {
          if (denied()) ++refused;
          else failures.push_back("the invalid pool: " + last_);
        } else if (i % 2 == 1) {
          client_->create(kPolicies, policy("rotation-dry-run"), {.field_manager = "", .dry_run = true});
        } else {
          client_->patch(kPolicies.with_name(policy_name_), kube::PatchType::MergePatch,
                         R"({"metadata":{"labels":{"rotation-test/request":")" + std::to_string(requests) + R"("}}})");
        }
      } catch (const std::exception& e) {
        failures.push_back(e.what());
      }
    }
    observe();
  }
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start).count();
  std::cout << requests << " requests in " << seconds << " s; " << serving.size() << " serving certificates, "
            << cas.size() << " CAs\n";

  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << requests << " requests failed, first: " << failures.front()
                                << "\n" << log_tail("controller.log");
  EXPECT_GE(serving.size(), 4u) << "serving certificate changes: " << serving.size() - 1;
  EXPECT_GE(cas.size(), 2u);
  EXPECT_TRUE(overlap_seen) << "the caBundle never held the old and the new CA together";
  EXPECT_TRUE(settled_on_new_ca) << log_tail("controller.log");
  EXPECT_GT(refused, 0);
  EXPECT_TRUE(controller_->running()) << log_tail("controller.log");
}

// A kubernetes.io/tls Secret as cert-manager writes it.
std::string tls_secret(const std::string& name, const webhook::CertificateBundle& b) {
  auto b64 = [](const std::string& pem) { return "\"" + kube::base64_encode(pem) + "\""; };
  return R"({"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/tls","metadata":{"namespace":"gpupool-system","name":")" +
         name + R"("},"data":{"tls.crt":)" + b64(b.cert_pem) + R"(,"tls.key":)" + b64(b.key_pem) + R"(,"ca.crt":)" +
         b64(b.ca_cert_pem) + "}}";
}

TEST_F(WebhookRotationTest, ServesAndFollowsASecretItDoesNotWrite) {
  const kube::ResourceRef secret = kSecret.with_name("external-webhook-tls");
  webhook::SubjectNames names;
  names.ip_addresses = {"127.0.0.1"};
  const webhook::CertificateBundle first = webhook::generate_bundle(names);
  client_->create(secret.with_name(""), tls_secret(secret.name, first));
  start_controller_with_webhook({"--webhook-cert-source", "secret", "--webhook-secret", "gpupool-system/" + secret.name,
                                 "--webhook-cert-check-interval", "1s"});
  ASSERT_TRUE(wait_webhook_answers());
  auto ca_bundle = [&] {
    const auto configuration = client_->get(kConfiguration);
    return kube::base64_decode(str((*at(configuration, {"webhooks"}))[0], {"clientConfig", "caBundle"})).value_or("");
  };
  EXPECT_EQ(ca_bundle(), first.ca_cert_pem);

  // "cert-manager" replaces everything, CA included: the controller serves the
  // new certificate and writes the new caBundle (the old certificate is not
  // trusted by it, so a refusal from the webhook proves both).
  const webhook::CertificateBundle second = webhook::generate_bundle(names);
  auto current = client_->get(secret);
  auto replaced = kube::parse_json(tls_secret(secret.name, second));
  replaced["metadata"].AddMember("resourceVersion", rapidjson::Value(str(current, {"metadata", "resourceVersion"}).c_str(),
                                                                     replaced.GetAllocator()), replaced.GetAllocator());
  const std::string written = str(client_->update(secret, kube::to_json(replaced)), {"metadata", "resourceVersion"});
  ASSERT_TRUE(testenv::wait_until([&] { return ca_bundle() == second.ca_cert_pem && denied(); }, 30s))
      << last_ << "\n" << log_tail("controller.log");
  EXPECT_EQ(str(client_->get(secret), {"metadata", "resourceVersion"}), written) << "the controller wrote the Secret";
  cluster().kubectl_result({"delete", "secret", "-n", "gpupool-system", secret.name});
}

}  // namespace
}  // namespace gpupool::test
