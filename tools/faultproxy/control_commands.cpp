#include "control_commands.h"

#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>

#include "gpupool/netutil/http_text.h"
#include "query_params.h"

namespace gpupool::faultproxy {
namespace {

using Params = std::map<std::string, std::string>;

const std::string kOk = R"({"ok":true})";

ControlAnswer error(int status, std::string_view message) {
  std::string body = R"({"error":)";
  netutil::append_json_string(body, message);
  body.append("}");
  return {status, body};
}

template <typename T>
T number(const Params& params, const std::string& name, std::optional<T> fallback = std::nullopt) {
  const auto it = params.find(name);
  if (it == params.end()) {
    if (fallback) return *fallback;
    throw std::invalid_argument("missing parameter '" + name + "'");
  }
  const std::string& text = it->second;
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw std::invalid_argument("parameter '" + name + "' is not a number: '" + text + "'");
  }
  return value;
}

std::chrono::milliseconds millis(const Params& params, const std::string& name) {
  const auto ms = number<std::int64_t>(params, name);
  if (ms < 0) throw std::invalid_argument("parameter '" + name + "' must not be negative");
  return std::chrono::milliseconds(ms);
}

Match match_of(const Params& params) {
  Match m;
  if (auto it = params.find("method"); it != params.end()) m.method = it->second;
  if (auto it = params.find("path_prefix"); it != params.end()) m.path_prefix = it->second;
  if (auto it = params.find("query_contains"); it != params.end()) m.query_contains = it->second;
  return m;
}

int retry_after(const Params& params) {
  return number<int>(params, "retry_after", Fault::kDefaultRetryAfter);
}

Rule rule_of(const Params& params, bool status_only) {
  Rule rule;
  rule.match = match_of(params);
  rule.count = number<int>(params, "count", 1);
  if (params.count("status") != 0) {
    rule.fault = Fault::error(number<int>(params, "status"), retry_after(params));
  } else if (status_only) {
    throw std::invalid_argument("missing parameter 'status'");
  } else if (params.count("cut") != 0) {
    rule.fault = Fault::cut(number<std::uint64_t>(params, "after_bytes", 0));
  } else if (params.count("delay_ms") != 0) {
    rule.fault = Fault::delayed(millis(params, "delay_ms"));
  } else {
    throw std::invalid_argument("say what happens: status=, cut=1 or delay_ms=");
  }
  return rule;
}

ControlAnswer dispatch(FaultProxy& proxy, const std::string& path, const Params& params) {
  if (path == "/cut") return {200, R"({"cut":)" + std::to_string(proxy.cut_connections()) + "}"};
  if (path == "/delay") {
    proxy.set_delay(millis(params, "ms"));
  } else if (path == "/errors") {
    proxy.set_error_share(number<int>(params, "status"), number<double>(params, "share"), retry_after(params),
                          match_of(params));
  } else if (path == "/next" || path == "/fail-next") {
    proxy.add_rule(rule_of(params, path == "/fail-next"));
  } else if (path == "/refuse") {
    proxy.refuse_for(millis(params, "ms"));
  } else if (path == "/seed") {
    proxy.set_seed(number<std::uint64_t>(params, "value"));
  } else if (path == "/reset") {
    proxy.reset();
  }
  return {200, kOk};
}

}  // namespace

std::string stats_json(const Stats& s) {
  std::string out = "{";
  auto add = [&](const char* name, std::uint64_t value) {
    if (out.size() > 1) out.push_back(',');
    out.append("\"").append(name).append("\":").append(std::to_string(value));
  };
  add("connections", s.connections);
  add("open_connections", s.open_connections);
  add("refused", s.refused);
  add("requests", s.requests);
  add("forwarded", s.forwarded);
  add("injected", s.injected);
  add("delayed", s.delayed);
  add("cut", s.cut);
  add("upstream_errors", s.upstream_errors);
  out.append("}");
  return out;
}

ControlAnswer handle_control(FaultProxy& proxy, const netutil::RecordedRequest& request) {
  try {
    const Params params = parse_query(request.query);
    if (request.path == "/healthz" || request.path == "/stats") {
      if (request.method != "GET") return error(405, "use GET");
      return {200, request.path == "/stats" ? stats_json(proxy.stats()) : kOk};
    }
    static const std::set<std::string, std::less<>> kPostPaths = {"/cut",  "/delay", "/errors", "/next", "/fail-next",
                                                                  "/refuse", "/seed", "/reset"};
    if (kPostPaths.count(request.path) == 0) return error(404, "unknown control endpoint " + request.path);
    if (request.method != "POST") return error(405, "use POST");
    return dispatch(proxy, request.path, params);
  } catch (const std::invalid_argument& e) {
    return error(400, e.what());
  }
}

}  // namespace gpupool::faultproxy
