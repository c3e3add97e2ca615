// The answers the fault proxy makes up: realistic metav1.Status bodies.
#include "fault_answer.h"

#include <gtest/gtest.h>

#include <string>

namespace gpupool::faultproxy {
namespace {

std::string body_of(const std::string& response) { return response.substr(response.find("\r\n\r\n") + 4); }

TEST(FaultAnswer, TooManyRequestsCarriesRetryAfter) {
  const std::string r = injected_response(Fault::error(429), "GET", "/api/v1/pods", true);
  EXPECT_EQ(r.rfind("HTTP/1.1 429 Too Many Requests\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("\r\nRetry-After: 1\r\n"), std::string::npos) << r;
  EXPECT_NE(r.find("\r\nX-Fault-Proxy: injected\r\n"), std::string::npos) << r;
  EXPECT_EQ(r.find("Connection: close"), std::string::npos) << r;
  EXPECT_EQ(body_of(r),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
            R"("message":"Too many requests, please try again later.","reason":"TooManyRequests",)"
            R"("details":{"kind":"pods","retryAfterSeconds":1},"code":429})");
  const std::string declared = "Content-Length: " + std::to_string(body_of(r).size()) + "\r\n";
  EXPECT_NE(r.find(declared), std::string::npos);
}

TEST(FaultAnswer, ConflictNamesTheObjectOfThePath) {
  const std::string r =
      injected_response(Fault::error(409), "PUT", "/apis/test.gpupool.io/v1/namespaces/ns/widgets/w1", false);
  EXPECT_EQ(r.rfind("HTTP/1.1 409 Conflict\r\n", 0), 0u);
  EXPECT_NE(r.find("Connection: close\r\n"), std::string::npos);
  EXPECT_EQ(r.find("Retry-After"), std::string::npos);
  EXPECT_EQ(body_of(r),
            R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":)"
            R"("Operation cannot be fulfilled on widgets.test.gpupool.io \"w1\": the object has been modified; )"
            R"(please apply your changes to the latest version and try again","reason":"Conflict",)"
            R"("details":{"name":"w1","group":"test.gpupool.io","kind":"widgets"},"code":409})");
}

TEST(FaultAnswer, InternalErrorAndExplicitRetryAfterAndHead) {
  std::string r = injected_response(Fault::error(500, 3), "GET", "/api/v1/namespaces/ns", true);
  EXPECT_NE(r.find("Retry-After: 3\r\n"), std::string::npos);
  EXPECT_NE(body_of(r).find(R"("reason":"InternalError")"), std::string::npos);
  EXPECT_NE(body_of(r).find(R"("details":{"name":"ns","kind":"namespaces","retryAfterSeconds":3})"),
            std::string::npos)
      << body_of(r);
  r = injected_response(Fault::error(503), "HEAD", "/healthz", true);
  EXPECT_EQ(body_of(r), "");
  EXPECT_EQ(r.find("Content-Length: 0\r\n"), std::string::npos);
}

TEST(FaultAnswer, ProxyErrorsCloseTheConnection) {
  const std::string r = proxy_error_response(502, "ServiceUnavailable", "upstream down");
  EXPECT_EQ(r.rfind("HTTP/1.1 502 Bad Gateway\r\n", 0), 0u);
  EXPECT_NE(r.find("X-Fault-Proxy: error\r\n"), std::string::npos);
  EXPECT_NE(r.find("Connection: close\r\n"), std::string::npos);
  EXPECT_NE(body_of(r).find(R"("message":"upstream down","reason":"ServiceUnavailable","code":502)"),
            std::string::npos);
}

}  // namespace
}  // namespace gpupool::faultproxy
