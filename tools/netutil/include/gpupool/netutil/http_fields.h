// HTTP/1.1 header-section parsing shared by the request reader and the
// response parser (RFC 9110 5, RFC 9112 5): field lines into a map with
// lower-cased names, repeated fields joined by ", ", plus the small text
// helpers that go with it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace gpupool::netutil {

using HeaderMap = std::map<std::string, std::string>;  // names lower-cased

// Parses CRLF-separated field lines (no start line, no final empty line) into
// `out`. False, with `error` set, on obsolete line folding, a line without a
// colon, a name that is not a token or a value with control characters.
bool parse_header_fields(std::string_view fields, HeaderMap& out, std::string& error);

// True when the comma-separated header value lists `token` (case-insensitive).
bool lists_token(std::string_view value, std::string_view token);

// How a header names the body's framing: "chunked" (Transfer-Encoding whose
// last coding is chunked), a Content-Length, or neither. Bad: both headers,
// a transfer coding other than chunked last, or a Content-Length that is not
// one non-negative decimal number (repeats of the same value are accepted).
struct BodyFraming {
  enum class Kind { None, Length, Chunked, Bad } kind = Kind::None;
  std::uint64_t length = 0;  // Kind::Length
  std::string error;         // Kind::Bad
};
BodyFraming body_framing(const HeaderMap& headers);

std::string lower(std::string_view s);
std::string_view trim(std::string_view s);  // spaces and tabs at both ends
bool is_token(std::string_view s);          // RFC 9110 token: a method or a field name
bool has_control_chars(std::string_view s);

}  // namespace gpupool::netutil
