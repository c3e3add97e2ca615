#include "gpupool/netutil/chunked_decoder.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "gpupool/netutil/http_fields.h"

namespace gpupool::netutil {
namespace {

constexpr std::string_view kCrlf = "\r\n";

}  // namespace

ChunkedDecoder::Result ChunkedDecoder::fail(std::string why) {
  stage_ = Stage::Bad;
  error_ = std::move(why);
  return Result::Malformed;
}

ChunkedDecoder::Result ChunkedDecoder::feed(std::string_view data, std::size_t& consumed, std::string* body) {
  consumed = 0;
  for (;;) {
    const std::string_view rest = data.substr(consumed);
    switch (stage_) {
      case Stage::Bad:
        return Result::Malformed;
      case Stage::Done:
        return Result::Complete;
      case Stage::Size: {
        const auto end = rest.find(kCrlf);
        if (end == std::string_view::npos) {
          if (rest.size() > kMaxLineBytes) return fail("chunk size line too long");
          return Result::NeedMore;
        }
        std::string_view size_text = rest.substr(0, end);
        size_text = trim(size_text.substr(0, size_text.find(';')));  // drop chunk extensions
        if (size_text.empty() || size_text.size() > 15 ||
            !std::all_of(size_text.begin(), size_text.end(),
                         [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; })) {
          return fail("bad chunk size");
        }
        const std::uint64_t size = std::stoull(std::string(size_text), nullptr, 16);
        if (size > max_body_ - decoded_) return fail("body too large");
        consumed += end + 2;
        remaining_ = size;
        stage_ = size == 0 ? Stage::Trailers : Stage::Data;
        break;
      }
      case Stage::Data: {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, rest.size()));
        if (body != nullptr) body->append(rest.substr(0, n));
        consumed += n;
        remaining_ -= n;
        decoded_ += n;
        if (remaining_ > 0) return Result::NeedMore;
        stage_ = Stage::DataEnd;
        break;
      }
      case Stage::DataEnd:
        if (rest.size() < 2) return Result::NeedMore;
        if (rest.substr(0, 2) != kCrlf) return fail("chunk data not followed by CRLF");
        consumed += 2;
        stage_ = Stage::Size;
        break;
      case Stage::Trailers: {
        // Trailer fields are read and dropped; an empty line ends the body.
        const auto end = rest.find(kCrlf);
        if (end == std::string_view::npos) {
          if (rest.size() > kMaxLineBytes) return fail("trailer line too long");
          return Result::NeedMore;
        }
        consumed += end + 2;
        if (end == 0) stage_ = Stage::Done;
        break;
      }
    }
  }
}

}  // namespace gpupool::netutil
