#include "support/http_request_reader.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

namespace gpupool::test {
namespace {

constexpr std::string_view kCrlf = "\r\n";
constexpr std::size_t kMaxLineBytes = 8 * 1024;  // chunk-size and trailer lines

bool is_tchar(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (std::isalnum(u) != 0) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_tchar); }

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

bool has_control_chars(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
}

// True when the comma-separated header value lists `token` (case-insensitive).
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

}  // namespace

HttpRequestReader::Result HttpRequestReader::fail(std::string why) {
  stage_ = Stage::Bad;
  error_ = std::move(why);
  return Result::Malformed;
}

bool HttpRequestReader::expects_continue() const {
  if (stage_ == Stage::Head || stage_ == Stage::Done || stage_ == Stage::Bad) return false;
  const auto it = request_.headers.find("expect");
  return it != request_.headers.end() && lower(trim(it->second)) == "100-continue";
}

HttpRequestReader::Result HttpRequestReader::parse_head(std::string_view head) {
  // Request line: METHOD SP target SP HTTP/1.x
  const auto line_end = head.find(kCrlf);
  const std::string_view line = head.substr(0, line_end);
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return fail("request line is not 'METHOD target version'");
  }
  const auto method = line.substr(0, sp1);
  const auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const auto version = line.substr(sp2 + 1);
  if (!is_token(method)) return fail("bad method");
  if (target.empty() || target.front() != '/' || has_control_chars(target)) return fail("bad request target");
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return fail("unsupported HTTP version");

  request_.method = std::string(method);
  request_.target = std::string(target);
  const auto question = target.find('?');
  request_.path = std::string(target.substr(0, question));
  request_.query = question == std::string_view::npos ? "" : std::string(target.substr(question + 1));

  // Header fields.
  std::string_view rest = line_end == std::string_view::npos ? "" : head.substr(line_end + 2);
  while (!rest.empty()) {
    const auto end = rest.find(kCrlf);
    const std::string_view field = rest.substr(0, end);
    rest = end == std::string_view::npos ? "" : rest.substr(end + 2);
    if (field.empty()) continue;
    if (field.front() == ' ' || field.front() == '\t') return fail("obsolete header line folding");
    const auto colon = field.find(':');
    if (colon == std::string_view::npos || !is_token(field.substr(0, colon))) return fail("bad header field");
    const auto value = trim(field.substr(colon + 1));
    if (has_control_chars(value)) return fail("control character in header value");
    auto [it, inserted] = request_.headers.emplace(lower(field.substr(0, colon)), std::string(value));
    if (!inserted) it->second.append(", ").append(value);
  }

  const auto& headers = request_.headers;
  const auto connection = headers.find("connection");
  if (version == "HTTP/1.0") {
    keep_alive_ = connection != headers.end() && lists_token(connection->second, "keep-alive");
  } else {
    keep_alive_ = connection == headers.end() || !lists_token(connection->second, "close");
  }

  const auto te = headers.find("transfer-encoding");
  const auto cl = headers.find("content-length");
  if (te != headers.end()) {
    if (cl != headers.end()) return fail("both Transfer-Encoding and Content-Length");
    if (lower(trim(te->second)) != "chunked") return fail("unsupported Transfer-Encoding");
    stage_ = Stage::ChunkSize;
    return Result::NeedMore;
  }
  if (cl != headers.end()) {
    const std::string& digits = cl->second;
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return fail("bad Content-Length");
    }
    remaining_ = std::stoul(digits);
    if (remaining_ > kMaxBodyBytes) return fail("body too large");
    stage_ = remaining_ == 0 ? Stage::Done : Stage::FixedBody;
    return stage_ == Stage::Done ? Result::Complete : Result::NeedMore;
  }
  stage_ = Stage::Done;
  return Result::Complete;
}

HttpRequestReader::Result HttpRequestReader::feed(std::string& buffer) {
  for (;;) {
    switch (stage_) {
      case Stage::Bad:
        return Result::Malformed;
      case Stage::Done:
        return Result::Complete;
      case Stage::Head: {
        // Tolerate empty lines before the request line (RFC 9112 2.2).
        while (buffer.size() >= 2 && buffer.compare(0, 2, kCrlf) == 0) buffer.erase(0, 2);
        const auto end = buffer.find("\r\n\r\n");
        if (end == std::string::npos) {
          if (buffer.size() > kMaxHeadBytes) return fail("request head too large");
          return Result::NeedMore;
        }
        if (end > kMaxHeadBytes) return fail("request head too large");
        const std::string head = buffer.substr(0, end);
        buffer.erase(0, end + 4);
        const Result r = parse_head(head);
        if (r != Result::NeedMore) return r;
        break;
      }
      case Stage::FixedBody: {
        const std::size_t n = std::min(remaining_, buffer.size());
        request_.body.append(buffer, 0, n);
        buffer.erase(0, n);
        remaining_ -= n;
        if (remaining_ > 0) return Result::NeedMore;
        stage_ = Stage::Done;
        break;
      }
      case Stage::ChunkSize: {
        const auto end = buffer.find(kCrlf);
        if (end == std::string::npos) {
          if (buffer.size() > kMaxLineBytes) return fail("chunk size line too long");
          return Result::NeedMore;
        }
        std::string_view size_text = std::string_view(buffer).substr(0, end);
        size_text = trim(size_text.substr(0, size_text.find(';')));  // drop chunk extensions
        if (size_text.empty() || size_text.size() > 8 ||
            !std::all_of(size_text.begin(), size_text.end(),
                         [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; })) {
          return fail("bad chunk size");
        }
        const std::size_t size = std::stoul(std::string(size_text), nullptr, 16);
        buffer.erase(0, end + 2);
        if (size > kMaxBodyBytes - request_.body.size()) return fail("body too large");
        remaining_ = size;
        stage_ = size == 0 ? Stage::Trailers : Stage::ChunkData;
        break;
      }
      case Stage::ChunkData: {
        const std::size_t n = std::min(remaining_, buffer.size());
        request_.body.append(buffer, 0, n);
        buffer.erase(0, n);
        remaining_ -= n;
        if (remaining_ > 0) return Result::NeedMore;
        stage_ = Stage::ChunkDataEnd;
        break;
      }
      case Stage::ChunkDataEnd:
        if (buffer.size() < 2) return Result::NeedMore;
        if (buffer.compare(0, 2, kCrlf) != 0) return fail("chunk data not followed by CRLF");
        buffer.erase(0, 2);
        stage_ = Stage::ChunkSize;
        break;
      case Stage::Trailers: {
        // Trailer fields are read and dropped; an empty line ends the request.
        const auto end = buffer.find(kCrlf);
        if (end == std::string::npos) {
          if (buffer.size() > kMaxLineBytes) return fail("trailer line too long");
          return Result::NeedMore;
        }
        buffer.erase(0, end + 2);
        if (end == 0) stage_ = Stage::Done;
        break;
      }
    }
  }
}

RecordedRequest HttpRequestReader::take() {
  RecordedRequest out = std::move(request_);
  *this = HttpRequestReader{};
  return out;
}

}  // namespace gpupool::test
