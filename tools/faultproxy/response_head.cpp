#include "response_head.h"

namespace gpupool::faultproxy {

bool parse_response_head(std::string_view head, ResponseHead& out, std::string& error) {
  const auto line_end = head.find("\r\n");
  const std::string_view line = head.substr(0, line_end);
  // "HTTP/1.1 200 OK": version, SP, three digits, then SP and a reason (possibly empty) or nothing.
  if (line.size() < 12 || (line.substr(0, 9) != "HTTP/1.1 " && line.substr(0, 9) != "HTTP/1.0 ") ||
      (line.size() > 12 && line[12] != ' ')) {
    error = "bad status line";
    return false;
  }
  int status = 0;
  for (const char c : line.substr(9, 3)) {
    if (c < '0' || c > '9') {
      error = "bad status code";
      return false;
    }
    status = status * 10 + (c - '0');
  }
  if (status < 100) {
    error = "bad status code";
    return false;
  }
  out.status = status;
  out.http10 = line[7] == '0';
  out.headers.clear();
  return netutil::parse_header_fields(line_end == std::string_view::npos ? "" : head.substr(line_end + 2),
                                      out.headers, error);
}

bool keeps_alive(const ResponseHead& head) {
  const auto connection = head.headers.find("connection");
  if (head.http10) return connection != head.headers.end() && netutil::lists_token(connection->second, "keep-alive");
  return connection == head.headers.end() || !netutil::lists_token(connection->second, "close");
}

bool has_no_body(const ResponseHead& head, bool head_request) {
  return head_request || head.status < 200 || head.status == 204 || head.status == 304;
}

}  // namespace gpupool::faultproxy
