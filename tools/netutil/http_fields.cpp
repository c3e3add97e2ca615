#include "gpupool/netutil/http_fields.h"

#include <algorithm>
#include <cctype>

namespace gpupool::netutil {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

bool has_control_chars(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}

bool lists_token(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    const auto comma = value.find(',');
    const auto item = trim(value.substr(0, comma));
    if (lower(item) == token) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

bool parse_header_fields(std::string_view fields, HeaderMap& out, std::string& error) {
  while (!fields.empty()) {
    const auto end = fields.find("\r\n");
    const std::string_view field = fields.substr(0, end);
    fields = end == std::string_view::npos ? "" : fields.substr(end + 2);
    if (field.empty()) continue;
    if (field.front() == ' ' || field.front() == '\t') {
      error = "obsolete header line folding";
      return false;
    }
    const auto colon = field.find(':');
    if (colon == std::string_view::npos || !is_token(field.substr(0, colon))) {
      error = "bad header field";
      return false;
    }
    const auto value = trim(field.substr(colon + 1));
    if (has_control_chars(value)) {
      error = "control character in header value";
      return false;
    }
    auto [it, inserted] = out.emplace(lower(field.substr(0, colon)), std::string(value));
    if (!inserted) it->second.append(", ").append(value);
  }
  return true;
}

BodyFraming body_framing(const HeaderMap& headers) {
  BodyFraming out;
  const auto te = headers.find("transfer-encoding");
  const auto cl = headers.find("content-length");
  if (te != headers.end()) {
    if (cl != headers.end()) return {BodyFraming::Kind::Bad, 0, "both Transfer-Encoding and Content-Length"};
    std::string_view codings = te->second;
    const auto comma = codings.rfind(',');
    const std::string_view last = trim(comma == std::string_view::npos ? codings : codings.substr(comma + 1));
    if (lower(last) != "chunked") return {BodyFraming::Kind::Bad, 0, "unsupported Transfer-Encoding"};
    out.kind = BodyFraming::Kind::Chunked;
    return out;
  }
  if (cl == headers.end()) return out;
  // "5, 5" from repeated fields is one length (RFC 9110 8.6).
  std::string_view values = cl->second;
  bool first = true;
  while (true) {
    const auto comma = values.find(',');
    const std::string_view digits = trim(values.substr(0, comma));
    if (digits.empty() || digits.size() > 15 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return {BodyFraming::Kind::Bad, 0, "bad Content-Length"};
    }
    const std::uint64_t length = std::stoull(std::string(digits));
    if (!first && length != out.length) return {BodyFraming::Kind::Bad, 0, "conflicting Content-Length values"};
    out.length = length;
    first = false;
    if (comma == std::string_view::npos) break;
    values.remove_prefix(comma + 1);
  }
  out.kind = BodyFraming::Kind::Length;
  return out;
}

}  // namespace gpupool::netutil
