// The fault proxy's HTTP pieces: response heads, the request sent upstream,
// the upstream URL and control-port query strings.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "query_params.h"
#include "response_head.h"
#include "upstream_request.h"
#include "upstream_target.h"

namespace gpupool::faultproxy {
namespace {

TEST(ResponseHead, ParsesStatusHeadersAndKeepAlive) {
  ResponseHead h;
  std::string error;
  ASSERT_TRUE(parse_response_head("HTTP/1.1 200 OK\r\nContent-Type: a\r\nTransfer-Encoding: chunked", h, error));
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(h.headers.at("transfer-encoding"), "chunked");
  EXPECT_TRUE(keeps_alive(h));
  EXPECT_FALSE(has_no_body(h, false));
  EXPECT_TRUE(has_no_body(h, true));

  ASSERT_TRUE(parse_response_head("HTTP/1.1 204\r\nConnection: close", h, error));
  EXPECT_EQ(h.status, 204);
  EXPECT_FALSE(keeps_alive(h));
  EXPECT_TRUE(has_no_body(h, false));

  ASSERT_TRUE(parse_response_head("HTTP/1.0 200 OK", h, error));
  EXPECT_FALSE(keeps_alive(h));

  for (const char* bad : {"", "HTTP/2 200 OK", "HTTP/1.1 20 OK", "HTTP/1.1 abc OK", "HTTP/1.1 200OK",
                          "HTTP/1.1 200 OK\r\nbad header"}) {
    EXPECT_FALSE(parse_response_head(bad, h, error)) << bad;
  }
}

TEST(UpstreamRequest, KeepsEndToEndHeadersAndReframesTheBody) {
  netutil::RecordedRequest r;
  r.method = "POST";
  r.target = "/api/v1/namespaces/a/configmaps?fieldManager=x";
  r.headers = {{"host", "127.0.0.1:1"},       {"authorization", "Bearer t"}, {"transfer-encoding", "chunked"},
               {"expect", "100-continue"},     {"connection", "keep-alive, x-hop"}, {"x-hop", "1"},
               {"content-type", "application/json"}, {"upgrade", "h2c"}};
  r.body = "{}";
  EXPECT_EQ(upstream_request(r, true),
            "POST /api/v1/namespaces/a/configmaps?fieldManager=x HTTP/1.1\r\n"
            "authorization: Bearer t\r\ncontent-type: application/json\r\nhost: 127.0.0.1:1\r\n"
            "content-length: 2\r\n\r\n{}");
  netutil::RecordedRequest get;
  get.method = "GET";
  get.target = "/version";
  EXPECT_EQ(upstream_request(get, false), "GET /version HTTP/1.1\r\nconnection: close\r\n\r\n");
}

TEST(UpstreamTarget, ParsesHttpsAndHttpUrls) {
  UpstreamTarget t = parse_upstream_url("https://127.0.0.1:6443");
  EXPECT_TRUE(t.tls);
  EXPECT_EQ(t.host, "127.0.0.1");
  EXPECT_EQ(t.port, 6443);
  t = parse_upstream_url("http://localhost/");
  EXPECT_FALSE(t.tls);
  EXPECT_EQ(t.host, "localhost");
  EXPECT_EQ(t.port, 80);
  t = parse_upstream_url("https://[::1]:8443");
  EXPECT_EQ(t.host, "::1");
  EXPECT_EQ(t.port, 8443);
  for (const char* bad : {"", "ftp://x", "https://", "https://h:1/path", "https://h:port", "https://h:70000"}) {
    EXPECT_THROW(parse_upstream_url(bad), std::invalid_argument) << bad;
  }
}

TEST(QueryParams, DecodesPairs) {
  const auto p = parse_query("status=429&share=0.5&path_prefix=%2Fapi%2Fv1&flag&q=a+b&status=500");
  EXPECT_EQ(p.at("status"), "500");
  EXPECT_EQ(p.at("share"), "0.5");
  EXPECT_EQ(p.at("path_prefix"), "/api/v1");
  EXPECT_EQ(p.at("flag"), "");
  EXPECT_EQ(p.at("q"), "a b");
  EXPECT_TRUE(parse_query("").empty());
  EXPECT_THROW(parse_query("a=%zz"), std::invalid_argument);
  EXPECT_THROW(parse_query("a=%2"), std::invalid_argument);
}

}  // namespace
}  // namespace gpupool::faultproxy
