// get_when_reachable: waits through an API server's transient refusals,
// gives up at once on a real answer, and stops when told.
#include "gpupool/kube/reachable.h"

#include <gtest/gtest.h>

#include "gpupool/kube/errors.h"
#include "support/scripted_server.h"

namespace gpupool::kube {
namespace {

using namespace std::chrono_literals;
using test::ScriptedServer;
using test::Step;

RestConfig config_for(const ScriptedServer& server) {
  RestConfig c;
  c.server = server.url();
  c.tls.ca_pem = server.ca_pem();
  c.credentials = std::make_shared<StaticCredentials>(Credentials{"secret-token", "", ""});
  c.qps = 0;
  c.timeout = 5s;
  return c;
}

TEST(GetWhenReachable, WaitsThroughServerErrorsAndReturnsTheAnswer) {
  ScriptedServer server;
  for (int i = 0; i < 3; ++i) server.enqueue(test::status_step(503, "ServiceUnavailable", "starting"));
  server.enqueue(test::status_step(429, "TooManyRequests", "busy"));
  Step ok;
  ok.body = R"({"gitVersion":"v1.37.2"})";
  server.enqueue(ok);
  Client c(config_for(server));
  const auto body = get_when_reachable(c, "/version", {});
  ASSERT_TRUE(body.has_value());
  EXPECT_EQ(*body, ok.body);
  EXPECT_EQ(server.requests().size(), 5u);
}

TEST(GetWhenReachable, ARealRefusalIsThrownAtOnce) {
  ScriptedServer server;
  server.enqueue(test::status_step(403, "Forbidden", "no"));
  Client c(config_for(server));
  EXPECT_THROW(get_when_reachable(c, "/version", {}), ApiError);
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(GetWhenReachable, StopsWhenToldWithoutAnAnswer) {
  ScriptedServer server;
  Client c(config_for(server));
  std::stop_source stop;
  stop.request_stop();
  EXPECT_FALSE(get_when_reachable(c, "/version", stop.get_token()).has_value());
  EXPECT_TRUE(server.requests().empty());
}

}  // namespace
}  // namespace gpupool::kube
