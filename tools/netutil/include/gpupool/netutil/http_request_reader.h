// Incremental HTTP/1.x request parser for the scripted test server and the
// fault proxy.
//
// Feed it the bytes read from a connection; it consumes exactly one request
// (head plus body, Content-Length or chunked) and leaves any following bytes
// in the buffer for the next request on the same keep-alive connection.
// Anything it does not understand is Malformed (a server answers 400); it
// never throws and bounds what it buffers (head 64 KiB, body 16 MiB).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "gpupool/netutil/chunked_decoder.h"
#include "gpupool/netutil/http_fields.h"

namespace gpupool::netutil {

struct RecordedRequest {
  std::string method;
  std::string target;  // as sent: path?query
  std::string path;
  std::string query;                           // without '?'; empty when none
  std::string version;                         // "HTTP/1.1" or "HTTP/1.0"
  HeaderMap headers;                           // names lower-cased; repeats joined by ", "
  std::string body;                            // chunked bodies decoded
};

class HttpRequestReader {
 public:
  static constexpr std::size_t kMaxHeadBytes = 64 * 1024;
  static constexpr std::size_t kMaxBodyBytes = 16 * 1024 * 1024;

  enum class Result { NeedMore, Complete, Malformed };

  // Consumes bytes from the front of `buffer`. Returns Complete once a whole
  // request is read (then take() it), NeedMore while more bytes are needed,
  // Malformed when the bytes cannot be a valid request (the reader is then
  // done; error() says why).
  Result feed(std::string& buffer);

  // True once the head is parsed.
  bool head_done() const { return stage_ != Stage::Head; }
  // The head asked for "Expect: 100-continue" and the body is still to come.
  bool expects_continue() const;
  // Whether the connection may serve another request after this one
  // (HTTP/1.1 without "Connection: close", or HTTP/1.0 with keep-alive).
  // Ask before take(), which resets it.
  bool keep_alive() const { return keep_alive_; }
  const std::string& error() const { return error_; }

  // Hands over the complete request and resets the reader for the next one.
  RecordedRequest take();

 private:
  enum class Stage { Head, FixedBody, Chunked, Done, Bad };

  Result fail(std::string why);
  Result parse_head(std::string_view head);

  Stage stage_ = Stage::Head;
  RecordedRequest request_;
  std::size_t remaining_ = 0;  // body bytes left (FixedBody)
  std::optional<ChunkedDecoder> chunked_;
  bool keep_alive_ = true;
  std::string error_;
};

}  // namespace gpupool::netutil
