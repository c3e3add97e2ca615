// AdmissionReview (admission.k8s.io/v1) as kube-apiserver sends it to a
// webhook and reads the answer back. Pure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

namespace gpupool::admission {

struct AdmissionRequest {
  std::string uid;        // request.uid: the response must carry it
  std::string group, version, kind;  // request.kind
  std::string operation;  // CREATE, UPDATE, DELETE, CONNECT
  std::string name, ns;
  std::string sub_resource;  // request.subResource ("eviction", "status"), empty for the object itself
  // request.userInfo: who asks. `extra` holds what the authenticator added,
  // such as a bound service account token's authentication.kubernetes.io/node-name.
  std::string username;
  std::map<std::string, std::vector<std::string>> extra;
  bool dry_run = false;
  rapidjson::Document object;  // request.object (null for DELETE)
};

// The request in an AdmissionReview body, or why it is none (among the
// reasons: objects or arrays nested more than 512 deep, refused before any
// parsing since whoever reaches the server's port can send a body).
std::optional<AdmissionRequest> parse_admission_review(std::string_view body, std::string& error);

struct AdmissionResponse {
  std::string uid;
  bool allowed = true;
  int code = 200;           // status.code when refused (403, 422)
  std::string reason;       // status.reason when refused ("Invalid", "Forbidden")
  std::string message;      // status.message: what kubectl shows after "denied the request: "
  std::optional<std::string> json_patch;  // RFC 6902, for mutating answers
  std::vector<std::string> warnings;
};

// The AdmissionReview answer body.
std::string admission_review_response(const AdmissionResponse& response);

}  // namespace gpupool::admission
