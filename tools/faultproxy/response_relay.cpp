#include "response_relay.h"

#include <algorithm>
#include <chrono>
#include <string_view>
#include <utility>

#include "gpupool/netutil/chunked_decoder.h"
#include "io_wait.h"
#include "response_head.h"

namespace gpupool::faultproxy {
namespace {

constexpr std::size_t kMaxHeadBytes = 64 * 1024;
constexpr std::chrono::milliseconds kNoLimit{-1};

using End = RelayResult::End;

class Relay {
 public:
  Relay(netutil::SocketStream& upstream, std::string& buffer, netutil::SocketStream& client,
        std::uint64_t cut_after_bytes)
      : upstream_(upstream), buffer_(buffer), client_(client), budget_(cut_after_bytes) {}

  RelayResult run(bool head_request);

 private:
  // Reads more from the upstream into the buffer. On failure `end` says how
  // the relay ends (upstream EOF or error, client gone).
  bool read_more(End& end);
  // Writes the first `n` bytes of the buffer to the client and drops them.
  bool send(std::size_t n, End& end);
  RelayResult result(End end, std::string error = {}) const {
    RelayResult r;
    r.end = end;
    r.error = std::move(error);
    return r;
  }

  netutil::SocketStream& upstream_;
  std::string& buffer_;
  netutil::SocketStream& client_;
  std::uint64_t budget_;  // 0: none
  std::uint64_t sent_ = 0;
  bool received_ = false;  // any byte came from the upstream for this response
};

bool Relay::read_more(End& end) {
  if (wait_readable(upstream_, &client_, kNoLimit) == Wake::PeerGone) {
    end = End::ClientGone;
    return false;
  }
  if (!upstream_.read_some(buffer_)) {
    end = received_ ? End::Failed : End::NoResponse;
    return false;
  }
  received_ = true;
  return true;
}

bool Relay::send(std::size_t n, End& end) {
  std::string_view bytes = std::string_view(buffer_).substr(0, n);
  const bool over = budget_ > 0 && sent_ + bytes.size() >= budget_;
  if (over) bytes = bytes.substr(0, static_cast<std::size_t>(budget_ - sent_));
  if (!bytes.empty() && !client_.write_all(bytes)) {
    end = End::ClientGone;
    return false;
  }
  sent_ += bytes.size();
  buffer_.erase(0, n);
  if (over) {
    end = End::CutByFault;
    return false;
  }
  return true;
}

RelayResult Relay::run(bool head_request) {
  received_ = !buffer_.empty();
  End end = End::Failed;
  ResponseHead head;
  for (;;) {  // interim (1xx) heads, then the final one
    std::size_t head_end;
    while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (buffer_.size() > kMaxHeadBytes) return result(End::Failed, "response head too large");
      if (!read_more(end)) return result(end, "upstream closed before the response head was complete");
    }
    if (head_end > kMaxHeadBytes) return result(End::Failed, "response head too large");
    std::string error;
    if (!parse_response_head(std::string_view(buffer_).substr(0, head_end), head, error)) {
      return result(End::Failed, "bad response head from upstream: " + error);
    }
    if (head.status == 101) return result(End::Failed, "protocol upgrades are not supported");
    if (!send(head_end + 4, end)) return result(end);
    if (head.status >= 200) break;
  }

  const bool keep_alive = keeps_alive(head);
  bool delimited_by_close = false;
  if (!has_no_body(head, head_request)) {
    const netutil::BodyFraming framing = netutil::body_framing(head.headers);
    switch (framing.kind) {
      case netutil::BodyFraming::Kind::Bad:
        return result(End::Failed, "bad response framing from upstream: " + framing.error);
      case netutil::BodyFraming::Kind::Length: {
        std::uint64_t remaining = framing.length;
        while (remaining > 0) {
          if (buffer_.empty() && !read_more(end)) return result(end == End::NoResponse ? End::Failed : end,
                                                               "upstream closed mid-body");
          const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, buffer_.size()));
          if (!send(n, end)) return result(end);
          remaining -= n;
        }
        break;
      }
      case netutil::BodyFraming::Kind::Chunked: {
        netutil::ChunkedDecoder decoder;
        for (;;) {
          std::size_t consumed = 0;
          const auto r = decoder.feed(buffer_, consumed, nullptr);
          if (!send(consumed, end)) return result(end);
          if (r == netutil::ChunkedDecoder::Result::Complete) break;
          if (r == netutil::ChunkedDecoder::Result::Malformed) {
            return result(End::Failed, "bad chunked body from upstream: " + decoder.error());
          }
          if (!read_more(end)) return result(end == End::NoResponse ? End::Failed : end, "upstream closed mid-body");
        }
        break;
      }
      case netutil::BodyFraming::Kind::None:
        delimited_by_close = true;
        for (;;) {
          if (!buffer_.empty() && !send(buffer_.size(), end)) return result(end);
          if (!read_more(end)) {
            if (end == End::ClientGone) return result(end);
            break;  // the end of the connection ends the body
          }
        }
        break;
    }
  }
  RelayResult r = result(End::Complete);
  r.keep_alive = keep_alive && !delimited_by_close;
  r.upstream_reusable = r.keep_alive && buffer_.empty();
  return r;
}

}  // namespace

RelayResult relay_response(netutil::SocketStream& upstream, std::string& upstream_buffer,
                           netutil::SocketStream& client, bool head_request, std::uint64_t cut_after_bytes) {
  return Relay(upstream, upstream_buffer, client, cut_after_bytes).run(head_request);
}

}  // namespace gpupool::faultproxy
