#include "gpupool/netutil/http_request_reader.h"

#include <algorithm>
#include <utility>

namespace gpupool::netutil {
namespace {

constexpr std::string_view kCrlf = "\r\n";

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
  if (target.empty() || target.front() != '/' || has_control_chars(target) ||
      target.find('\t') != std::string_view::npos) {
    return fail("bad request target");
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return fail("unsupported HTTP version");

  request_.method = std::string(method);
  request_.target = std::string(target);
  request_.version = std::string(version);
  const auto question = target.find('?');
  request_.path = std::string(target.substr(0, question));
  request_.query = question == std::string_view::npos ? "" : std::string(target.substr(question + 1));

  std::string why;
  if (!parse_header_fields(line_end == std::string_view::npos ? "" : head.substr(line_end + 2), request_.headers,
                           why)) {
    return fail(why);
  }

  const auto& headers = request_.headers;
  const auto connection = headers.find("connection");
  if (version == "HTTP/1.0") {
    keep_alive_ = connection != headers.end() && lists_token(connection->second, "keep-alive");
  } else {
    keep_alive_ = connection == headers.end() || !lists_token(connection->second, "close");
  }

  const BodyFraming framing = body_framing(headers);
  switch (framing.kind) {
    case BodyFraming::Kind::Bad:
      return fail(framing.error);
    case BodyFraming::Kind::Chunked:
      chunked_.emplace(kMaxBodyBytes);
      stage_ = Stage::Chunked;
      return Result::NeedMore;
    case BodyFraming::Kind::Length:
      if (framing.length > kMaxBodyBytes) return fail("body too large");
      remaining_ = static_cast<std::size_t>(framing.length);
      stage_ = remaining_ == 0 ? Stage::Done : Stage::FixedBody;
      return stage_ == Stage::Done ? Result::Complete : Result::NeedMore;
    case BodyFraming::Kind::None:
      break;
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
      case Stage::Chunked: {
        std::size_t consumed = 0;
        const ChunkedDecoder::Result r = chunked_->feed(buffer, consumed, &request_.body);
        buffer.erase(0, consumed);
        if (r == ChunkedDecoder::Result::Malformed) return fail(chunked_->error());
        if (r == ChunkedDecoder::Result::NeedMore) return Result::NeedMore;
        stage_ = Stage::Done;
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

}  // namespace gpupool::netutil
