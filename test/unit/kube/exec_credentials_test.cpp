// ExecCredentials with real plugins: small shell scripts in a temp directory.
#include "gpupool/kube/exec_credentials.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <thread>

#include "config_test_util.h"
#include "gpupool/kube/base64.h"

namespace gpupool::kube {
namespace {

using namespace std::chrono;
using testing::config_error;
using testing::TempDir;

// A JSON string literal (quotes included) for `s`.
std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// A plugin that counts its runs in `dir/count`, records its environment in
// `dir/exec_info` and `dir/env_greeting`, and prints `dir/output` with
// TOKEN replaced by "tok-<run>".
class Plugin {
 public:
  explicit Plugin(const TempDir& dir) : dir_(dir) {
    path_ = dir.write("plugin.sh",
                      "#!/bin/sh\n"
                      "d=\"$(dirname \"$0\")\"\n"
                      "n=$(cat \"$d/count\" 2>/dev/null || echo 0)\n"
                      "n=$((n+1))\n"
                      "echo $n > \"$d/count\"\n"
                      "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$d/exec_info\"\n"
                      "printf '%s' \"$GREETING\" > \"$d/env_greeting\"\n"
                      "printf '%s' \"$*\" > \"$d/args\"\n"
                      "sed \"s/TOKEN/tok-$n/\" \"$d/output\"\n",
                      true);
  }

  void set_output(const std::string& json) const { dir_.write("output", json); }
  void set_token_output(const std::string& api_version, const std::string& expiry = "") const {
    std::string status = R"("token":"TOKEN")";
    if (!expiry.empty()) status += R"(,"expirationTimestamp":")" + expiry + "\"";
    set_output(R"({"apiVersion":")" + api_version + R"(","kind":"ExecCredential","status":{)" + status + "}}\n");
  }

  ExecConfig config(const std::string& api_version = kExecApiV1) const {
    ExecConfig c;
    c.command = path_;
    c.api_version = api_version;
    return c;
  }

  int runs() const {
    const std::string n = dir_.read("count");
    return n.empty() ? 0 : std::stoi(n);
  }

 private:
  const TempDir& dir_;
  std::string path_;
};

struct FakeClock {
  system_clock::time_point t = sys_days{2030y / January / 1};
  std::function<system_clock::time_point()> fn() {
    return [this] { return t; };
  }
};

TEST(ExecCredentials, V1TokenIsCachedWithoutExpiryUntilInvalidate) {
  TempDir dir;
  Plugin plugin(dir);
  plugin.set_token_output(kExecApiV1);
  ExecCredentials source(plugin.config());
  EXPECT_EQ(source.get().bearer_token, "tok-1");
  EXPECT_EQ(source.get().bearer_token, "tok-1");
  EXPECT_EQ(plugin.runs(), 1);
  source.invalidate();
  EXPECT_EQ(source.get().bearer_token, "tok-2");
  EXPECT_EQ(source.runs(), 2);
}

TEST(ExecCredentials, V1Beta1TokenIsAccepted) {
  TempDir dir;
  Plugin plugin(dir);
  plugin.set_token_output(kExecApiV1Beta1);
  ExecCredentials source(plugin.config(kExecApiV1Beta1));
  EXPECT_EQ(source.get().bearer_token, "tok-1");
  rapidjson::Document info;
  info.Parse(dir.read("exec_info").c_str());
  ASSERT_TRUE(info.IsObject());
  EXPECT_STREQ(info["apiVersion"].GetString(), kExecApiV1Beta1);
}

TEST(ExecCredentials, CachesUntilShortlyBeforeExpiry) {
  TempDir dir;
  Plugin plugin(dir);
  plugin.set_token_output(kExecApiV1, "2030-01-01T01:00:00Z");  // an hour after the fake now
  FakeClock clock;
  ExecOptions options;
  options.now = clock.fn();
  options.refresh_before_expiry = seconds(30);
  ExecCredentials source(plugin.config(), options);

  EXPECT_EQ(source.get().bearer_token, "tok-1");
  clock.t += minutes(59);
  EXPECT_EQ(source.get().bearer_token, "tok-1");
  clock.t += seconds(31);  // 29s before expiry: inside the refresh margin
  EXPECT_EQ(source.get().bearer_token, "tok-2");
  EXPECT_EQ(plugin.runs(), 2);
}

TEST(ExecCredentials, ShortLivedCredentialIsKeptForHalfItsLifetime) {
  TempDir dir;
  Plugin plugin(dir);
  plugin.set_token_output(kExecApiV1, "2030-01-01T00:00:10Z");  // 10s, shorter than the margin
  FakeClock clock;
  ExecOptions options;
  options.now = clock.fn();
  ExecCredentials source(plugin.config(), options);
  EXPECT_EQ(source.get().bearer_token, "tok-1");
  clock.t += seconds(4);
  EXPECT_EQ(source.get().bearer_token, "tok-1");
  clock.t += seconds(1);
  EXPECT_EQ(source.get().bearer_token, "tok-2");
}

TEST(ExecCredentials, ExpiredCredentialIsUsedOnceThenRenewed) {
  TempDir dir;
  Plugin plugin(dir);
  plugin.set_token_output(kExecApiV1, "2029-12-31T23:00:00Z");
  FakeClock clock;
  ExecOptions options;
  options.now = clock.fn();
  ExecCredentials source(plugin.config(), options);
  EXPECT_EQ(source.get().bearer_token, "tok-1");
  EXPECT_EQ(source.get().bearer_token, "tok-2");
}

TEST(ExecCredentials, ConcurrentCallersShareOneRun) {
  TempDir dir;
  Plugin plugin(dir);
  plugin.set_token_output(kExecApiV1);
  ExecCredentials source(plugin.config());
  std::vector<std::thread> threads;
  std::vector<std::string> tokens(8);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    threads.emplace_back([&, i] { tokens[i] = source.get().bearer_token; });
  }
  for (auto& t : threads) t.join();
  for (const auto& t : tokens) EXPECT_EQ(t, "tok-1");
  EXPECT_EQ(plugin.runs(), 1);
}

TEST(ExecCredentials, PassesArgsEnvAndExecInfo) {
  TempDir dir;
  Plugin plugin(dir);
  plugin.set_token_output(kExecApiV1);
  ExecConfig config = plugin.config();
  config.args = {"get-token", "--cluster", "a b"};
  config.env = {{"GREETING", "hello"}};
  ExecCredentials source(config);
  source.get();
  EXPECT_EQ(dir.read("env_greeting"), "hello");
  EXPECT_EQ(dir.read("args"), "get-token --cluster a b");

  rapidjson::Document info;
  info.Parse(dir.read("exec_info").c_str());
  ASSERT_TRUE(info.IsObject()) << dir.read("exec_info");
  EXPECT_STREQ(info["apiVersion"].GetString(), kExecApiV1);
  EXPECT_STREQ(info["kind"].GetString(), "ExecCredential");
  EXPECT_FALSE(info["spec"]["interactive"].GetBool());
  EXPECT_FALSE(info["spec"].HasMember("cluster"));
}

TEST(ExecCredentials, ConfiguredEnvOverridesTheProcessEnvironment) {
  TempDir dir;
  Plugin plugin(dir);
  plugin.set_token_output(kExecApiV1);
  testing::ScopedEnv env;
  env.set("GREETING", "from-parent");
  ExecConfig config = plugin.config();
  ExecCredentials(config).get();
  EXPECT_EQ(dir.read("env_greeting"), "from-parent");
  config.env = {{"GREETING", "from-config"}};
  ExecCredentials(config).get();
  EXPECT_EQ(dir.read("env_greeting"), "from-config");
}

TEST(ExecCredentials, ProvidesClusterInfoWhenAsked) {
  TempDir dir;
  Plugin plugin(dir);
  plugin.set_token_output(kExecApiV1);
  ExecConfig config = plugin.config();
  config.provide_cluster_info = true;
  ExecOptions options;
  options.cluster = ExecClusterInfo{"https://k8s.example:6443", "api.example", false, "CA-PEM", ""};
  ExecCredentials(config, options).get();

  rapidjson::Document info;
  info.Parse(dir.read("exec_info").c_str());
  ASSERT_TRUE(info.IsObject());
  const auto& cluster = info["spec"]["cluster"];
  EXPECT_STREQ(cluster["server"].GetString(), "https://k8s.example:6443");
  EXPECT_STREQ(cluster["tls-server-name"].GetString(), "api.example");
  EXPECT_EQ(base64_decode(cluster["certificate-authority-data"].GetString()).value(), "CA-PEM");
  EXPECT_FALSE(cluster.HasMember("insecure-skip-tls-verify"));
  EXPECT_FALSE(cluster.HasMember("proxy-url"));
}

TEST(ExecCredentials, ReturnsClientCertificateAndKey) {
  TempDir dir;
  Plugin plugin(dir);
  plugin.set_output(std::string(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{)") +
                    R"("clientCertificateData":)" + json_string(testing::kCertPem) + R"(,"clientKeyData":)" +
                    json_string(testing::kKeyPem) + "}}");
  const Credentials c = ExecCredentials(plugin.config()).get();
  EXPECT_EQ(c.bearer_token, "");
  EXPECT_EQ(c.client_cert_pem, testing::kCertPem);
  EXPECT_EQ(c.client_key_pem, testing::kKeyPem);
}

TEST(ExecCredentials, FindsBareCommandsInPath) {
  TempDir dir;
  Plugin plugin(dir);
  plugin.set_token_output(kExecApiV1);
  testing::ScopedEnv env;
  const char* old_path = std::getenv("PATH");
  env.set("PATH", dir.path() + ":" + (old_path ? old_path : "/usr/bin:/bin"));
  ExecConfig config = plugin.config();
  config.command = "plugin.sh";
  EXPECT_EQ(ExecCredentials(config).get().bearer_token, "tok-1");
}

// Runs a plugin printing `stdout_text` (and `stderr_text`, exiting `status`)
// and returns the ConfigError message.
std::string failure(const std::string& stdout_text, const std::string& stderr_text = "", int status = 0,
                    ExecConfig config = {}, ExecOptions options = {}) {
  TempDir dir;
  dir.write("out", stdout_text);
  dir.write("err", stderr_text);
  const std::string script = dir.write("fail.sh",
                                       "#!/bin/sh\n"
                                       "d=\"$(dirname \"$0\")\"\n"
                                       "cat \"$d/out\"\n"
                                       "cat \"$d/err\" >&2\n"
                                       "exit " + std::to_string(status) + "\n",
                                       true);
  if (config.command.empty()) config.command = script;
  if (config.api_version.empty()) config.api_version = kExecApiV1;
  return config_error([&] { ExecCredentials(config, options).get(); });
}

TEST(ExecCredentialsErrors, NonZeroExitQuotesStderr) {
  const std::string msg = failure("", "login required: run 'cloud auth login'\n", 3);
  EXPECT_NE(msg.find("exec plugin \""), std::string::npos) << msg;
  EXPECT_NE(msg.find("fail.sh\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("exited with status 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("login required"), std::string::npos) << msg;
}

TEST(ExecCredentialsErrors, BadJsonDoesNotQuoteStdout) {
  const std::string msg = failure("token: secret-token-value\n");
  EXPECT_NE(msg.find("not valid JSON"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("secret-token-value"), std::string::npos) << msg;
}

TEST(ExecCredentialsErrors, ApiVersionMismatch) {
  const std::string msg =
      failure(R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t"}})");
  EXPECT_NE(msg.find("returned apiVersion \"client.authentication.k8s.io/v1beta1\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("asks for \"client.authentication.k8s.io/v1\""), std::string::npos) << msg;
}

TEST(ExecCredentialsErrors, MissingStatusTokenOrKey) {
  EXPECT_NE(failure(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})").find("no status"),
            std::string::npos);
  EXPECT_NE(failure(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}})")
                .find("neither a token nor a client certificate"),
            std::string::npos);
  const std::string only_cert = failure(std::string(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)") +
                                        R"("status":{"clientCertificateData":)" + json_string(testing::kCertPem) + "}}");
  EXPECT_NE(only_cert.find("only one of status.clientCertificateData and status.clientKeyData"), std::string::npos) << only_cert;
  const std::string bad_key = failure(
      std::string(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":)") +
      json_string(testing::kCertPem) + R"(,"clientKeyData":"not a key"}})");
  EXPECT_NE(bad_key.find("status.clientKeyData"), std::string::npos) << bad_key;
}

TEST(ExecCredentialsErrors, WrongTypesAndTimestamps) {
  EXPECT_NE(failure(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":5}})")
                .find("status.token is not a string"),
            std::string::npos);
  EXPECT_NE(failure(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":[]})")
                .find("status is not an object"),
            std::string::npos);
  EXPECT_NE(failure(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"Pod","status":{"token":"t"}})")
                .find("kind \"Pod\""),
            std::string::npos);
  const std::string msg = failure(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t","expirationTimestamp":"tomorrow"}})");
  EXPECT_NE(msg.find("status.expirationTimestamp \"tomorrow\""), std::string::npos) << msg;
  EXPECT_NE(failure("[1,2]").find("not a JSON object"), std::string::npos);
}

TEST(ExecCredentialsErrors, CommandNotFoundShowsInstallHint) {
  ExecConfig config;
  config.command = "gpupool-no-such-plugin-xyz";
  config.api_version = kExecApiV1;
  config.install_hint = "Install it with: brew install xyz";
  const std::string msg = config_error([&] { ExecCredentials(config).get(); });
  EXPECT_NE(msg.find("exec plugin \"gpupool-no-such-plugin-xyz\": executable not found in $PATH"), std::string::npos) << msg;
  EXPECT_NE(msg.find("brew install xyz"), std::string::npos) << msg;

  config.command = "/nonexistent/dir/plugin";
  const std::string path_msg = config_error([&] { ExecCredentials(config).get(); });
  EXPECT_NE(path_msg.find("cannot run /nonexistent/dir/plugin"), std::string::npos) << path_msg;
  EXPECT_NE(path_msg.find("brew install xyz"), std::string::npos) << path_msg;
}

TEST(ExecCredentialsErrors, HungPluginIsKilledAtTheTimeout) {
  TempDir dir;
  ExecConfig config;
  config.command = dir.write("hang.sh", "#!/bin/sh\necho working >&2\nsleep 30\n", true);
  config.api_version = kExecApiV1;
  ExecOptions options;
  options.timeout = milliseconds(300);
  const auto start = steady_clock::now();
  const std::string msg = config_error([&] { ExecCredentials(config, options).get(); });
  EXPECT_LT(steady_clock::now() - start, seconds(10));
  EXPECT_NE(msg.find("did not finish within 300ms"), std::string::npos) << msg;
  EXPECT_NE(msg.find("working"), std::string::npos) << msg;
}

TEST(ExecCredentialsErrors, InvalidConfigsAreRejectedUpFront) {
  ExecConfig config;
  config.command = "/bin/true";
  config.api_version = "client.authentication.k8s.io/v1alpha1";
  EXPECT_NE(config_error([&] { ExecCredentials{config}; }).find("apiVersion \"client.authentication.k8s.io/v1alpha1\" is not supported"),
            std::string::npos);
  config.api_version = kExecApiV1;
  config.interactive_mode = ExecInteractiveMode::Always;
  EXPECT_NE(config_error([&] { ExecCredentials{config}; }).find("interactiveMode Always"), std::string::npos);
  config.interactive_mode = ExecInteractiveMode::Never;
  config.provide_cluster_info = true;
  EXPECT_NE(config_error([&] { ExecCredentials{config}; }).find("provideClusterInfo"), std::string::npos);
  config.provide_cluster_info = false;
  config.command.clear();
  EXPECT_NE(config_error([&] { ExecCredentials{config}; }).find("command is empty"), std::string::npos);
}

TEST(ExecCredentialsErrors, FailureDoesNotPoisonTheCache) {
  TempDir dir;
  Plugin plugin(dir);
  plugin.set_output("garbage");
  ExecCredentials source(plugin.config());
  EXPECT_NE(config_error([&] { source.get(); }).find("not valid JSON"), std::string::npos);
  plugin.set_token_output(kExecApiV1);
  EXPECT_EQ(source.get().bearer_token, "tok-2");
}

}  // namespace
}  // namespace gpupool::kube
