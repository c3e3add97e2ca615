// The HTTP/1.x request parser (scripted server, fault proxy), fed directly.
#include "gpupool/netutil/http_request_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace gpupool::netutil {
namespace {

using Result = HttpRequestReader::Result;

TEST(HttpRequestReader, ReadsOneRequestAndLeavesTheNextInTheBuffer) {
  HttpRequestReader reader;
  std::string buffer =
      "GET /api/v1/pods?limit=5 HTTP/1.1\r\nHost: x\r\nAccept: a\r\naccept: b\r\n\r\nPOST /next HTTP/1.1\r\n";
  ASSERT_EQ(reader.feed(buffer), Result::Complete);
  EXPECT_TRUE(reader.keep_alive());
  const RecordedRequest r = reader.take();
  EXPECT_EQ(r.method, "GET");
  EXPECT_EQ(r.path, "/api/v1/pods");
  EXPECT_EQ(r.query, "limit=5");
  EXPECT_EQ(r.headers.at("accept"), "a, b");
  EXPECT_EQ(buffer, "POST /next HTTP/1.1\r\n");
  EXPECT_EQ(reader.feed(buffer), Result::NeedMore);
}

TEST(HttpRequestReader, ReadsAChunkedBodyFedByteByByte) {
  const std::string wire =
      "PUT /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nTrailer: t\r\n\r\nNEXT";
  HttpRequestReader reader;
  std::string buffer;
  Result result = Result::NeedMore;
  std::size_t fed = 0;
  while (result == Result::NeedMore && fed < wire.size()) {
    buffer.push_back(wire[fed++]);
    result = reader.feed(buffer);
  }
  ASSERT_EQ(result, Result::Complete);
  EXPECT_EQ(reader.take().body, "hello, world");
  EXPECT_EQ(wire.substr(fed), "NEXT");
}

TEST(HttpRequestReader, ReportsExpectContinueBeforeTheBody) {
  HttpRequestReader reader;
  std::string buffer = "POST /x HTTP/1.1\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n";
  ASSERT_EQ(reader.feed(buffer), Result::NeedMore);
  EXPECT_TRUE(reader.head_done());
  EXPECT_TRUE(reader.expects_continue());
  buffer = "abc";
  ASSERT_EQ(reader.feed(buffer), Result::Complete);
  EXPECT_EQ(reader.take().body, "abc");
}

TEST(HttpRequestReader, KeepAliveFollowsVersionAndConnectionHeader) {
  const auto keep_alive = [](std::string wire) {
    HttpRequestReader reader;
    EXPECT_EQ(reader.feed(wire), Result::Complete);
    return reader.keep_alive();
  };
  EXPECT_TRUE(keep_alive("GET / HTTP/1.1\r\n\r\n"));
  EXPECT_FALSE(keep_alive("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n"));
  EXPECT_FALSE(keep_alive("GET / HTTP/1.0\r\n\r\n"));
  EXPECT_TRUE(keep_alive("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
}

TEST(HttpRequestReader, RejectsMalformedRequests) {
  for (std::string wire : {
           "GET /x\r\n\r\n",
           "GET /x HTTP/1.1 extra\r\n\r\n",
           "G(T /x HTTP/1.1\r\n\r\n",
           "GET /x HTTP/1.1\r\n folded\r\n\r\n",
           "GET /x HTTP/1.1\r\nBad Name: v\r\n\r\n",
           "POST /x HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
           "POST /x HTTP/1.1\r\nContent-Length: 999999999\r\n\r\n",
           "POST /x HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
           "POST /x HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
           "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n",
       }) {
    HttpRequestReader reader;
    EXPECT_EQ(reader.feed(wire), Result::Malformed) << wire;
    EXPECT_FALSE(reader.error().empty());
  }
}

TEST(HttpRequestReader, BoundsTheHead) {
  HttpRequestReader reader;
  std::string buffer = "GET /x HTTP/1.1\r\nX: " + std::string(HttpRequestReader::kMaxHeadBytes, 'a');
  EXPECT_EQ(reader.feed(buffer), Result::Malformed);
}

}  // namespace
}  // namespace gpupool::netutil
