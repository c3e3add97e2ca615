// TokenFileCredentials: re-reading a rotated token file.
#include "gpupool/kube/token_file.h"

#include <gtest/gtest.h>

#include "config_test_util.h"

namespace gpupool::kube {
namespace {

using namespace std::chrono;
using testing::config_error;
using testing::TempDir;

struct FakeSteadyClock {
  steady_clock::time_point t{seconds(1000)};
  std::function<steady_clock::time_point()> fn() {
    return [this] { return t; };
  }
};

TEST(TokenFile, ReadsAndTrimsTheToken) {
  TempDir dir;
  TokenFileCredentials source(dir.write("token", "  abc.def\n\n"));
  const Credentials c = source.get();
  EXPECT_EQ(c.bearer_token, "abc.def");
  EXPECT_EQ(c.client_cert_pem, "");
}

TEST(TokenFile, RereadsOnlyAfterTheInterval) {
  TempDir dir;
  FakeSteadyClock clock;
  TokenFileOptions options;
  options.refresh_interval = seconds(60);
  options.now = clock.fn();
  TokenFileCredentials source(dir.write("token", "first\n"), options);
  EXPECT_EQ(source.get().bearer_token, "first");

  dir.write("token", "second\n");  // rotated
  clock.t += seconds(59);
  EXPECT_EQ(source.get().bearer_token, "first");
  clock.t += seconds(1);
  EXPECT_EQ(source.get().bearer_token, "second");
}

TEST(TokenFile, RereadsAfterInvalidate) {
  TempDir dir;
  FakeSteadyClock clock;
  TokenFileOptions options;
  options.now = clock.fn();
  TokenFileCredentials source(dir.write("token", "first"), options);
  EXPECT_EQ(source.get().bearer_token, "first");
  dir.write("token", "second");
  EXPECT_EQ(source.get().bearer_token, "first");
  source.invalidate();
  EXPECT_EQ(source.get().bearer_token, "second");
}

TEST(TokenFile, KeepsTheLastTokenWhileAPeriodicRereadFails) {
  TempDir dir;
  FakeSteadyClock clock;
  TokenFileOptions options;
  options.now = clock.fn();
  const std::string path = dir.write("token", "good");
  TokenFileCredentials source(path, options);
  EXPECT_EQ(source.get().bearer_token, "good");

  std::filesystem::remove(path);
  clock.t += minutes(5);
  EXPECT_EQ(source.get().bearer_token, "good");

  dir.write("token", "rotated");
  EXPECT_EQ(source.get().bearer_token, "rotated");  // retried on the next call
}

TEST(TokenFile, ErrorsNameTheFileButNotTheToken) {
  TempDir dir;
  const std::string missing = dir / "missing";
  const std::string msg = config_error([&] { TokenFileCredentials(missing).get(); });
  EXPECT_NE(msg.find("token file " + missing), std::string::npos) << msg;
  EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;

  const std::string empty = dir.write("empty", " \n\t\n");
  EXPECT_NE(config_error([&] { TokenFileCredentials(empty).get(); }).find("empty"), std::string::npos);

  // After invalidate() a failing read is an error even with an old token.
  const std::string path = dir.write("token", "secret-value");
  TokenFileCredentials source(path);
  source.get();
  std::filesystem::remove(path);
  source.invalidate();
  const std::string after = config_error([&] { source.get(); });
  EXPECT_NE(after.find(path), std::string::npos);
  EXPECT_EQ(after.find("secret-value"), std::string::npos);
}

TEST(TokenFile, CarriesTheBaseClientCertificate) {
  TempDir dir;
  TokenFileOptions options;
  options.base = Credentials{"ignored", "CERT", "KEY"};
  TokenFileCredentials source(dir.write("token", "tok"), options);
  const Credentials c = source.get();
  EXPECT_EQ(c.bearer_token, "tok");
  EXPECT_EQ(c.client_cert_pem, "CERT");
  EXPECT_EQ(c.client_key_pem, "KEY");
}

}  // namespace
}  // namespace gpupool::kube
