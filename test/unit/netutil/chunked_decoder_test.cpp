// The chunked body decoder shared by the request reader and the fault proxy.
#include "gpupool/netutil/chunked_decoder.h"

#include <gtest/gtest.h>

#include <string>

namespace gpupool::netutil {
namespace {

using Result = ChunkedDecoder::Result;

TEST(ChunkedDecoder, DecodesAndStopsAtTheEndOfTheBody) {
  ChunkedDecoder decoder;
  const std::string wire = "3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\nNEXT";
  std::size_t consumed = 0;
  std::string body;
  EXPECT_EQ(decoder.feed(wire, consumed, &body), Result::Complete);
  EXPECT_EQ(body, "abcde");
  EXPECT_EQ(wire.substr(consumed), "NEXT");
  EXPECT_EQ(decoder.decoded_bytes(), 5u);
}

TEST(ChunkedDecoder, TakesBytesOneAtATimeKeepingPartialLines) {
  ChunkedDecoder decoder;
  const std::string wire = "a\r\n0123456789\r\n0\r\n\r\n";
  std::string pending;
  std::string body;
  Result r = Result::NeedMore;
  for (const char c : wire) {
    ASSERT_EQ(r, Result::NeedMore);
    pending.push_back(c);
    std::size_t consumed = 0;
    r = decoder.feed(pending, consumed, &body);
    pending.erase(0, consumed);
  }
  EXPECT_EQ(r, Result::Complete);
  EXPECT_EQ(body, "0123456789");
  EXPECT_TRUE(pending.empty());
}

TEST(ChunkedDecoder, CountsWithoutKeepingWhenNoBodyIsGiven) {
  ChunkedDecoder decoder;
  std::size_t consumed = 0;
  EXPECT_EQ(decoder.feed("4\r\nabcd\r\n", consumed, nullptr), Result::NeedMore);
  EXPECT_EQ(consumed, 9u);
  EXPECT_EQ(decoder.decoded_bytes(), 4u);
}

TEST(ChunkedDecoder, RejectsBadInputAndBoundsIt) {
  for (const std::string wire : {"x\r\n", "3\r\nabcX\r\n", "-1\r\n", "1234567890abcdef0\r\n"}) {
    ChunkedDecoder decoder;
    std::size_t consumed = 0;
    EXPECT_EQ(decoder.feed(wire, consumed, nullptr), Result::Malformed) << wire;
    EXPECT_FALSE(decoder.error().empty());
  }
  ChunkedDecoder limited(4);
  std::size_t consumed = 0;
  EXPECT_EQ(limited.feed("5\r\n", consumed, nullptr), Result::Malformed);
  ChunkedDecoder long_line;
  EXPECT_EQ(long_line.feed(std::string(ChunkedDecoder::kMaxLineBytes + 1, '1'), consumed, nullptr),
            Result::Malformed);
}

}  // namespace
}  // namespace gpupool::netutil
