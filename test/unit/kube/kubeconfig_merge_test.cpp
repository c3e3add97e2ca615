// Several kubeconfig files in $KUBECONFIG, merged as kubectl merges them.
#include <gtest/gtest.h>

#include "config_test_util.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/kubeconfig.h"

namespace gpupool::kube {
namespace {

using testing::config_error;
using testing::TempDir;

std::string cluster(const std::string& name, const std::string& server) {
  return "- name: " + name + "\n  cluster:\n    server: " + server + "\n";
}
std::string user(const std::string& name, const std::string& token) {
  return "- name: " + name + "\n  user:\n    token: " + token + "\n";
}
std::string context(const std::string& name, const std::string& c, const std::string& u) {
  return "- name: " + name + "\n  context:\n    cluster: " + c + "\n    user: " + u + "\n";
}

class KubeconfigMerge : public ::testing::Test {
 protected:
  RestConfig load(const std::vector<std::string>& files, std::optional<std::string> ctx = std::nullopt) {
    std::string value;
    for (const auto& f : files) value += (value.empty() ? "" : ":") + f;
    env_.set("KUBECONFIG", value);
    return load_kubeconfig(KubeconfigOptions{std::nullopt, std::move(ctx)});
  }

  TempDir dir_;
  testing::ScopedEnv env_;
};

TEST_F(KubeconfigMerge, FirstFileToDefineANameWins) {
  const std::string a = dir_.write("a", "clusters:\n" + cluster("shared", "https://from-a") +
                                            "users:\n" + user("shared-user", "token-a") +
                                            "contexts:\n" + context("main", "shared", "shared-user"));
  const std::string b = dir_.write("b", "clusters:\n" + cluster("shared", "https://from-b") + cluster("only-b", "https://only-b") +
                                            "users:\n" + user("shared-user", "token-b") +
                                            "contexts:\n" + context("main", "only-b", "shared-user") +
                                            context("other", "only-b", "shared-user") + "current-context: main\n");
  const RestConfig rc = load({a, b});
  EXPECT_EQ(rc.server, "https://from-a");                   // context "main" from a, cluster "shared" from a
  EXPECT_EQ(rc.credentials->get().bearer_token, "token-a");  // user from a
  EXPECT_EQ(load({a, b}, "other").server, "https://only-b");  // entries only b defines are still there
  EXPECT_EQ(load({b, a}).server, "https://only-b");          // order decides
}

TEST_F(KubeconfigMerge, EntriesAreTakenWholeNotFieldByField) {
  const std::string a = dir_.write("a", "clusters:\n- name: c\n  cluster:\n    server: https://a\n");
  const std::string b = dir_.write("b", "clusters:\n- name: c\n  cluster:\n    server: https://b\n    tls-server-name: from-b\n" +
                                            std::string("users:\n") + user("u", "t") + "contexts:\n" + context("x", "c", "u") +
                                            "current-context: x\n");
  const RestConfig rc = load({a, b});
  EXPECT_EQ(rc.server, "https://a");
  EXPECT_EQ(rc.tls.server_name, "");
}

TEST_F(KubeconfigMerge, FirstNonEmptyCurrentContextWins) {
  const std::string defs = "clusters:\n" + cluster("c1", "https://one") + cluster("c2", "https://two") + "users:\n" +
                           user("u", "t") + "contexts:\n" + context("one", "c1", "u") + context("two", "c2", "u");
  const std::string empty = dir_.write("empty", "current-context: \"\"\n");
  const std::string a = dir_.write("a", "current-context: two\n");
  const std::string b = dir_.write("b", defs + "current-context: one\n");
  EXPECT_EQ(load({empty, a, b}).server, "https://two");
  EXPECT_EQ(load({b, a}).server, "https://one");
}

TEST_F(KubeconfigMerge, MissingFilesAreSkippedAndEmptyEntriesIgnored) {
  const std::string a = dir_.write("a", "clusters:\n" + cluster("c", "https://a") + "users:\n" + user("u", "t") + "contexts:\n" +
                                            context("x", "c", "u") + "current-context: x\n");
  const RestConfig rc = load({dir_ / "missing", "", a, dir_ / "missing-too"});
  EXPECT_EQ(rc.server, "https://a");
  EXPECT_NE(rc.source.find(a), std::string::npos);
  EXPECT_EQ(rc.source.find("missing"), std::string::npos);
}

TEST_F(KubeconfigMerge, NoExistingFileIsAnError) {
  const std::string msg = config_error([&] { load({dir_ / "x", dir_ / "y"}); });
  EXPECT_NE(msg.find("$KUBECONFIG=" + (dir_ / "x") + ":" + (dir_ / "y") + ": none of the files exists"), std::string::npos) << msg;
}

TEST_F(KubeconfigMerge, ABrokenFileInTheListIsAnError) {
  const std::string a = dir_.write("a", "clusters:\n" + cluster("c", "https://a"));
  const std::string bad = dir_.write("bad", "clusters: {\n");
  const std::string msg = config_error([&] { load({a, bad}); });
  EXPECT_NE(msg.find("kubeconfig " + bad + ": line"), std::string::npos) << msg;
}

TEST_F(KubeconfigMerge, RelativePathsFollowTheFileThatDefinedThem) {
  dir_.write("one/token", "token-one");
  dir_.write("two/token", "token-two");
  const std::string one = dir_.write("one/config", "users:\n- name: u\n  user:\n    tokenFile: token\n");
  const std::string two = dir_.write("two/config", "users:\n- name: v\n  user:\n    tokenFile: token\n" + std::string("clusters:\n") +
                                                       cluster("c", "https://c") + "contexts:\n" + context("x", "c", "u") +
                                                       context("y", "c", "v") + "current-context: x\n");
  EXPECT_EQ(load({one, two}).credentials->get().bearer_token, "token-one");
  EXPECT_EQ(load({one, two}, "y").credentials->get().bearer_token, "token-two");
}

TEST_F(KubeconfigMerge, ContextNotFoundNamesAllFiles) {
  const std::string a = dir_.write("a", "clusters:\n" + cluster("c", "https://a"));
  const std::string b = dir_.write("b", "users:\n" + user("u", "t"));
  const std::string msg = config_error([&] { load({a, b}, "nope"); });
  EXPECT_NE(msg.find("kubeconfig " + a + ":" + b + ": context \"nope\" (from --context) not found"), std::string::npos) << msg;
}

TEST(KubeconfigSplit, SplitsDropsEmptiesAndRepeats) {
  EXPECT_EQ(kubeconfig::split_path_list("a::b:a:"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(kubeconfig::split_path_list("").empty());
}

}  // namespace
}  // namespace gpupool::kube
