// The validating webhook answers with the words `gpupoolctl validate` prints.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gpupool/admission/validating.h"
#include "gpupool/kube/client.h"

namespace gpupool::admission {
namespace {

// A pool the MIG planner refuses (2 x 4g.40gb do not fit an A100's 7 slices).
std::string invalid_pool() {
  std::ifstream in(std::string(GPUPOOL_SOURCE_DIR) + "/test/data/a100-mig-overcommit.yaml");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}
const std::string kInvalidPool = invalid_pool();

std::string review(const std::string& operation, const rapidjson::Value& object, const std::string& kind = "GPUPool") {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002",)"
         R"("kind":{"group":"gpupool.io","version":"v1alpha1","kind":")" + kind + R"("},"operation":")" + operation +
         R"(","name":"a100-mig","object":)" + kube::to_json(object) + "}}";
}

ValidatingOptions options() {
  ValidatingOptions o;
  o.catalog = &gpu::Catalog::builtin();
  o.schemas = &schema::CrdSchemaSet::builtin();
  return o;
}

TEST(ValidatingWebhook, RefusesWithTheMessageValidatePrints) {
  const api::ManifestSet set = api::load_manifests_from_string(kInvalidPool, "pool.yaml");
  ASSERT_EQ(set.objects.size(), 1u);
  validation::ValidateOptions vo;
  vo.catalog = options().catalog;
  vo.schemas = options().schemas;
  const auto offline = validation::validate_manifests(set, vo);
  ASSERT_EQ(offline.problems.size(), 1u);
  std::string printed = validation::format_problem(offline.problems[0]);
  printed = printed.substr(std::string("pool.yaml:1: ").size());

  std::string error;
  auto request = parse_admission_review(review("CREATE", set.objects[0].object), error);
  ASSERT_TRUE(request) << error;
  const AdmissionResponse r = validate_request(*request, options());
  EXPECT_FALSE(r.allowed);
  EXPECT_EQ(r.code, 422);
  EXPECT_EQ(r.message, printed);
  EXPECT_NE(r.message.find("2 x 4g.40gb need 8 compute slices; A100-SXM4-80GB has 7"), std::string::npos) << r.message;

  const auto body = kube::parse_json(admission_review_response(r));
  EXPECT_EQ(kube::string_at(body, {"response", "uid"}), "705ab4f5-6393-11e8-b7cc-42010a800002");
  EXPECT_FALSE(body["response"]["allowed"].GetBool());
  EXPECT_EQ(body["response"]["status"]["code"].GetInt(), 422);
  EXPECT_EQ(kube::string_at(body, {"response", "status", "message"}), printed);
}

TEST(ValidatingWebhook, AllowsValidObjectsDeletesAndOtherKinds) {
  const api::ManifestSet set = api::load_manifests_from_string(kInvalidPool, "pool.yaml");
  std::string error;
  auto del = parse_admission_review(review("DELETE", set.objects[0].object), error);
  ASSERT_TRUE(del) << error;
  EXPECT_TRUE(validate_request(*del, options()).allowed);
  auto other = parse_admission_review(review("CREATE", set.objects[0].object, "Deployment"), error);
  ASSERT_TRUE(other);
  other->group = "apps";
  EXPECT_TRUE(validate_request(*other, options()).allowed);

  const auto valid = api::load_manifests_from_string(R"(apiVersion: gpupool.io/v1alpha1
kind: GPUPool
metadata: {name: ok}
spec:
  nodeSelector: {matchLabels: {a: b}}
)", "ok.yaml");
  auto ok = parse_admission_review(review("CREATE", valid.objects[0].object), error);
  ASSERT_TRUE(ok) << error;
  const auto r = validate_request(*ok, options());
  EXPECT_TRUE(r.allowed) << r.message;
  const auto body = kube::parse_json(admission_review_response(r));
  EXPECT_TRUE(body["response"]["allowed"].GetBool());
  EXPECT_FALSE(body["response"].HasMember("status"));
}

TEST(AdmissionReview, MalformedBodiesAreRefusedWithAReason) {
  std::string error;
  EXPECT_FALSE(parse_admission_review("{", error));
  EXPECT_NE(error.find("not JSON"), std::string::npos);
  EXPECT_FALSE(parse_admission_review(R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview"})", error));
  EXPECT_EQ(error, "expected an admission.k8s.io/v1 AdmissionReview");
  EXPECT_FALSE(parse_admission_review(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{}})", error));
  EXPECT_EQ(error, "AdmissionReview request without a uid");
  AdmissionResponse patch;
  patch.uid = "u";
  patch.json_patch = R"([{"op":"add","path":"/x","value":1}])";
  const auto body = kube::parse_json(admission_review_response(patch));
  EXPECT_EQ(kube::string_at(body, {"response", "patchType"}), "JSONPatch");
  EXPECT_EQ(kube::string_at(body, {"response", "patch"}), "W3sib3AiOiJhZGQiLCJwYXRoIjoiL3giLCJ2YWx1ZSI6MX1d");
}

}  // namespace
}  // namespace gpupool::admission
