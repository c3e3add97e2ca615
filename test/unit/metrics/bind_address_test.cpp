#include "gpupool/metrics/bind_address.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gpupool::metrics {
namespace {

TEST(MetricBindAddress, Parses) {
  struct Case {
    const char* text;
    const char* host;
    int port;
  };
  for (const auto& c : {Case{":8080", "", 8080}, Case{"127.0.0.1:0", "127.0.0.1", 0},
                        Case{"0.0.0.0:65535", "0.0.0.0", 65535}, Case{"[::1]:9090", "::1", 9090},
                        Case{"localhost:8081", "localhost", 8081}, Case{":0", "", 0}}) {
    const auto address = parse_bind_address(c.text);
    ASSERT_TRUE(address.has_value()) << c.text;
    EXPECT_EQ(address->host, c.host) << c.text;
    EXPECT_EQ(address->port, c.port) << c.text;
  }
}

TEST(MetricBindAddress, ZeroAndEmptyDisable) {
  EXPECT_FALSE(parse_bind_address("0").has_value());
  EXPECT_FALSE(parse_bind_address("").has_value());
}

TEST(MetricBindAddress, RejectsMalformed) {
  for (const char* bad : {"8080", ":", "host:", ":65536", ":-1", ":80x", "::1:80", "[::1:80", "a:b:80", ": 80"}) {
    try {
      parse_bind_address(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace gpupool::metrics
