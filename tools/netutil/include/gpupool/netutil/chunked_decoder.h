// Incremental decoder of one chunked HTTP/1.1 message body (RFC 9112 7.1):
// chunk-size lines (extensions ignored), chunk data and its CRLF, the last
// chunk and the trailer section up to its empty line.
//
// Used both to decode request bodies (HttpRequestReader) and to find where a
// relayed chunked response ends without changing its bytes (the fault proxy).
// Never throws; bounds the lines it waits for (8 KiB) and the decoded size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace gpupool::netutil {

class ChunkedDecoder {
 public:
  static constexpr std::size_t kMaxLineBytes = 8 * 1024;  // chunk-size and trailer lines

  enum class Result { NeedMore, Complete, Malformed };

  // `max_body`: decoded bytes beyond this are Malformed ("body too large").
  explicit ChunkedDecoder(std::uint64_t max_body = std::numeric_limits<std::uint64_t>::max())
      : max_body_(max_body) {}

  // Consumes bytes from the front of `data`, never past the end of the body,
  // and sets `consumed` to how many. A line split across calls is not
  // consumed until it is whole: the caller keeps the unconsumed rest and
  // passes it again, followed by more bytes. Decoded data is appended to
  // `body` unless it is null. Complete once the body ended (the decoder is
  // then done); Malformed when the bytes cannot be a chunked body (error()
  // says why).
  Result feed(std::string_view data, std::size_t& consumed, std::string* body);

  const std::string& error() const { return error_; }
  std::uint64_t decoded_bytes() const { return decoded_; }

 private:
  enum class Stage { Size, Data, DataEnd, Trailers, Done, Bad };

  Result fail(std::string why);

  Stage stage_ = Stage::Size;
  std::uint64_t max_body_;
  std::uint64_t remaining_ = 0;  // data bytes left in the current chunk
  std::uint64_t decoded_ = 0;
  std::string error_;
};

}  // namespace gpupool::netutil
