#include "upstream_request.h"

#include <set>
#include <string_view>

#include "gpupool/netutil/http_fields.h"

namespace gpupool::faultproxy {

std::string upstream_request(const netutil::RecordedRequest& request, bool keep_alive) {
  std::set<std::string, std::less<>> dropped = {"connection", "keep-alive", "proxy-connection", "te", "trailer",
                                                "upgrade",    "expect",     "transfer-encoding", "content-length"};
  const auto connection = request.headers.find("connection");
  if (connection != request.headers.end()) {
    std::string_view listed = connection->second;
    while (!listed.empty()) {
      const auto comma = listed.find(',');
      dropped.insert(netutil::lower(netutil::trim(listed.substr(0, comma))));
      if (comma == std::string_view::npos) break;
      listed.remove_prefix(comma + 1);
    }
  }
  std::string out = request.method + " " + request.target + " HTTP/1.1\r\n";
  for (const auto& [name, value] : request.headers) {
    if (dropped.count(name) != 0) continue;
    out.append(name).append(": ").append(value).append("\r\n");
  }
  const bool had_framing = request.headers.count("content-length") != 0 ||
                           request.headers.count("transfer-encoding") != 0;
  const bool body_method = request.method == "POST" || request.method == "PUT" || request.method == "PATCH";
  if (!request.body.empty() || had_framing || body_method) {
    out.append("content-length: ").append(std::to_string(request.body.size())).append("\r\n");
  }
  if (!keep_alive) out.append("connection: close\r\n");
  out.append("\r\n").append(request.body);
  return out;
}

}  // namespace gpupool::faultproxy
