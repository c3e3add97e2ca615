// The kube-apiserver style answer builders declared in scripted_server.h.
#include <string>
#include <string_view>
#include <utility>

#include "support/scripted_server.h"

namespace gpupool::test {

std::string watch_event_json(std::string_view type, std::string_view object_json) {
  std::string out = R"({"type":)";
  netutil::append_json_string(out, type);
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
