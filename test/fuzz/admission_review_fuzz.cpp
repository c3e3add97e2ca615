// libFuzzer target: any bytes as an AdmissionReview body, as the controller's
// webhook server hands it to its handlers (controller/webhook_setup.cpp):
// admission::parse_admission_review, then the validating webhook
// (validate_request with the builtin catalog and CRD schemas and a mig-parted
// config) and the pod gate (gate_pod). Parsing gives a request or a reason;
// each answer carries the request's uid, a refusal has a 4xx code and a
// message, a patch is a JSON array, the answer body is JSON; no exception.
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpupool/admission/admission_review.h"
#include "gpupool/admission/pod_gate.h"
#include "gpupool/admission/validating.h"
#include "gpupool/gpu/mig_parted.h"

namespace {

namespace adm = gpupool::admission;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// Layouts a cluster admin might name in a pool (--mig-parted-config).
constexpr std::string_view kMigParted = R"(version: v1
mig-configs:
  all-disabled:
    - devices: all
      mig-enabled: false
  training:
    - devices: all
      mig-enabled: true
      mig-devices: {"3g.40gb": 2}
)";

const adm::ValidatingOptions& options() {
  static const gpupool::gpu::MigPartedConfig mig_parted = gpupool::gpu::parse_mig_parted(kMigParted, "mig-parted.yaml");
  static const adm::ValidatingOptions o{&gpupool::gpu::Catalog::builtin(), &gpupool::schema::CrdSchemaSet::builtin(),
                                        &mig_parted};
  return o;
}

void check_answer(const adm::AdmissionRequest& request, const adm::AdmissionResponse& response) {
  check(response.uid == request.uid);
  if (!response.allowed) check(response.code >= 400 && response.code < 500 && !response.message.empty());
  if (response.json_patch) {
    rapidjson::Document patch;
    patch.Parse<rapidjson::kParseIterativeFlag>(response.json_patch->data(), response.json_patch->size());
    check(!patch.HasParseError() && patch.IsArray() && !patch.Empty());
  }
  const std::string body = adm::admission_review_response(response);
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(body.data(), body.size());
  check(!doc.HasParseError() && doc.IsObject() && doc.HasMember("response"));
  const rapidjson::Value& r = doc["response"];
  check(r.IsObject() && r.HasMember("uid") && r["uid"].IsString());
  check(std::string_view(r["uid"].GetString(), r["uid"].GetStringLength()) == request.uid);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  try {
    std::string error;
    const auto request = adm::parse_admission_review(body, error);
    if (!request) {
      check(!error.empty());
      return 0;
    }
    check(!request->uid.empty());
    check_answer(*request, adm::validate_request(*request, options()));
    check_answer(*request, adm::gate_pod(*request));
  } catch (...) {
    __builtin_trap();  // a handler that throws answers 500: the API server then fails or ignores the call
  }
  return 0;
}
