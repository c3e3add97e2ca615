#include "gpupool/admission/admission_review.h"

#include <rapidjson/error/en.h>

#include "gpupool/kube/base64.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/json_access.h"

namespace gpupool::admission {

namespace {

// Objects and arrays nested deeper than this are refused before parsing:
// the DOM's copy, the schema checks and serialising are recursive, and the
// server takes bodies from anyone who reaches its port (a body of 200 KB of
// '[' overflowed the stack). Kubernetes objects nest a few dozen levels.
constexpr std::size_t kMaxNesting = 512;

// Whether `json` nests objects and arrays at most `max` deep (strings skipped).
bool within_nesting(std::string_view json, std::size_t max) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max) return false;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return true;
}

}  // namespace

std::optional<AdmissionRequest> parse_admission_review(std::string_view body, std::string& error) {
  if (!within_nesting(body, kMaxNesting)) {
    error = "AdmissionReview nests deeper than " + std::to_string(kMaxNesting) + " levels";
    return std::nullopt;
  }
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(body.data(), body.size());
  if (doc.HasParseError()) {
    error = std::string("AdmissionReview is not JSON: ") + rapidjson::GetParseError_En(doc.GetParseError());
    return std::nullopt;
  }
  if (kube::string_of(kube::member(doc, "apiVersion")) != "admission.k8s.io/v1" ||
      kube::string_of(kube::member(doc, "kind")) != "AdmissionReview") {
    error = "expected an admission.k8s.io/v1 AdmissionReview";
    return std::nullopt;
  }
  const rapidjson::Value* req = kube::member(doc, "request");
  if (req == nullptr || !req->IsObject()) {
    error = "AdmissionReview without a request";
    return std::nullopt;
  }
  AdmissionRequest out;
  out.uid = kube::string_of(kube::member(req, "uid"));
  if (out.uid.empty()) {
    error = "AdmissionReview request without a uid";
    return std::nullopt;
  }
  const rapidjson::Value* kind = kube::member(req, "kind");
  out.group = kube::string_of(kube::member(kind, "group"));
  out.version = kube::string_of(kube::member(kind, "version"));
  out.kind = kube::string_of(kube::member(kind, "kind"));
  out.operation = kube::string_of(kube::member(req, "operation"));
  out.name = kube::string_of(kube::member(req, "name"));
  out.ns = kube::string_of(kube::member(req, "namespace"));
  out.sub_resource = kube::string_of(kube::member(req, "subResource"));
  const rapidjson::Value* user = kube::member(req, "userInfo");
  out.username = kube::string_of(kube::member(user, "username"));
  if (const rapidjson::Value* extra = kube::member(user, "extra"); extra != nullptr && extra->IsObject()) {
    for (const auto& m : extra->GetObject()) {
      if (!m.value.IsArray()) continue;
      auto& values = out.extra[std::string(m.name.GetString(), m.name.GetStringLength())];
      for (const auto& v : m.value.GetArray()) {
        if (v.IsString()) values.emplace_back(v.GetString(), v.GetStringLength());
      }
    }
  }
  const rapidjson::Value* dry = kube::member(req, "dryRun");
  out.dry_run = dry != nullptr && dry->IsBool() && dry->GetBool();
  if (const rapidjson::Value* obj = kube::member(req, "object")) {
    out.object.CopyFrom(*obj, out.object.GetAllocator());
  }
  return out;
}

std::string admission_review_response(const AdmissionResponse& r) {
  rapidjson::Document doc;
  doc.SetObject();
  auto& a = doc.GetAllocator();
  auto str = [&](const std::string& s) { return rapidjson::Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a); };
  doc.AddMember("apiVersion", "admission.k8s.io/v1", a);
  doc.AddMember("kind", "AdmissionReview", a);
  rapidjson::Value resp(rapidjson::kObjectType);
  resp.AddMember("uid", str(r.uid), a);
  resp.AddMember("allowed", r.allowed, a);
  if (!r.allowed) {
    rapidjson::Value status(rapidjson::kObjectType);
    status.AddMember("code", r.code, a);
    if (!r.reason.empty()) status.AddMember("reason", str(r.reason), a);
    status.AddMember("message", str(r.message), a);
    resp.AddMember("status", status, a);
  }
  if (r.json_patch) {
    resp.AddMember("patchType", "JSONPatch", a);
    resp.AddMember("patch", str(kube::base64_encode(*r.json_patch)), a);
  }
  if (!r.warnings.empty()) {
    rapidjson::Value w(rapidjson::kArrayType);
    for (const auto& x : r.warnings) w.PushBack(str(x), a);
    resp.AddMember("warnings", w, a);
  }
  doc.AddMember("response", resp, a);
  return kube::to_json(doc);
}

}  // namespace gpupool::admission
