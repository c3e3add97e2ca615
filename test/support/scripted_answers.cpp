// The kube-apiserver style answer builders declared in scripted_server.h.
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include "support/scripted_server.h"

namespace gpupool::test {
namespace {

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (const char c : s) {
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out.append(escaped);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

}  // namespace

std::string status_json(int code, std::string_view reason, std::string_view message) {
  std::string out = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":)";
  out.append(code < 400 ? R"("Success")" : R"("Failure")");
  out.append(R"(,"message":)");
  append_json_string(out, message);
  if (!reason.empty()) {
    out.append(R"(,"reason":)");
    append_json_string(out, reason);
  }
  out.append(R"(,"code":)").append(std::to_string(code)).append("}");
  return out;
}

std::string watch_event_json(std::string_view type, std::string_view object_json) {
  std::string out = R"({"type":)";
  append_json_string(out, type);
  out.append(R"(,"object":)").append(object_json).append("}\n");
  return out;
}

Step json_step(int status, std::string body) {
  Step step;
  step.status = status;
  step.body = std::move(body);
  return step;
}

Step status_step(int code, std::string_view reason, std::string_view message) {
  return json_step(code, status_json(code, reason, message));
}

}  // namespace gpupool::test
