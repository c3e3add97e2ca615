// gpupoolctl as the kubectl plugin kubectl-gpupool (the link the build makes
// beside it): its name in usage lines, kubectl's flags, and the errors that
// stop a command before it reaches a cluster.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gpupool/testenv/process.h"

namespace {

namespace fs = std::filesystem;
using gpupool::testenv::CommandResult;

std::string plugin_path() { return (fs::path(GPUPOOL_GPUPOOLCTL_BIN).parent_path() / "kubectl-gpupool").string(); }

CommandResult run(const std::string& bin, const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  return gpupool::testenv::run_command(bin, args, "", std::chrono::seconds(60), env);
}

std::string all(const CommandResult& r) { return "stdout:\n" + r.out + "stderr:\n" + r.err; }

// A kubeconfig with one context, for errors about contexts (nothing listens).
std::string kubeconfig() {
  const auto path = fs::temp_directory_path() / ("gpupoolctl-plugin-" + std::to_string(::getpid()) + ".kubeconfig");
  std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: here\n"
                         "clusters: [{name: c, cluster: {server: \"https://127.0.0.1:1\"}}]\n"
                         "users: [{name: u, user: {token: t}}]\n"
                         "contexts: [{name: here, context: {cluster: c, user: u, namespace: team-a}}]\n";
  return path.string();
}

TEST(KubectlPlugin, BuiltBesideGpupoolctl) {
  ASSERT_TRUE(fs::exists(plugin_path())) << plugin_path();
  EXPECT_EQ(fs::canonical(plugin_path()), fs::canonical(GPUPOOL_GPUPOOLCTL_BIN));
}

TEST(KubectlPlugin, UsageNamesWhatWasTyped) {
  auto plugin = run(plugin_path(), {"--help"});
  EXPECT_EQ(plugin.status, 0) << all(plugin);
  EXPECT_NE(plugin.out.find("Usage: kubectl gpupool [OPTIONS] SUBCOMMAND"), std::string::npos) << all(plugin);
  for (const char* cmd : {"status", "explain", "approve", "validate", "mig"}) {
    EXPECT_NE(plugin.out.find(std::string("  ") + cmd + " "), std::string::npos) << cmd << "\n" << all(plugin);
  }
  auto explain = run(plugin_path(), {"explain", "--help"});
  EXPECT_NE(explain.out.find("Usage: kubectl gpupool explain"), std::string::npos) << all(explain);
  EXPECT_NE(explain.out.find("kubectl gpupool explain tenantquota -n team-a train"), std::string::npos) << all(explain);
  auto ctl = run(GPUPOOL_GPUPOOLCTL_BIN, {"status", "--help"});
  EXPECT_NE(ctl.out.find("Usage: gpupoolctl status [OPTIONS]"), std::string::npos) << all(ctl);
  for (const char* flag : {"--kubeconfig", "--context", "-n,--namespace", "--request-timeout", "-A,--all-namespaces"}) {
    EXPECT_NE(ctl.out.find(flag), std::string::npos) << flag << "\n" << all(ctl);
  }
}

TEST(KubectlPlugin, ClusterFlagsOnEveryClusterCommand) {
  for (const char* cmd : {"status", "explain", "approve"}) {
    auto r = run(plugin_path(), {cmd, "--help"});
    for (const char* flag : {"--kubeconfig", "--context", "-n,--namespace", "--request-timeout"}) {
      EXPECT_NE(r.out.find(flag), std::string::npos) << cmd << " " << flag << "\n" << all(r);
    }
  }
}

TEST(KubectlPlugin, UnknownContextIsAClearError) {
  const std::string config = kubeconfig();
  for (const auto& env : std::vector<std::vector<std::string>>{{}, {"KUBECONFIG=" + config}}) {
    std::vector<std::string> args = {"status", "--context", "nowhere"};
    if (env.empty()) args.insert(args.end(), {"--kubeconfig", config});
    auto r = run(plugin_path(), args, env);
    EXPECT_EQ(r.status, 2) << all(r);
    EXPECT_NE(r.err.find("context \"nowhere\" (from --context) not found"), std::string::npos) << all(r);
  }
  fs::remove(config);
}

TEST(KubectlPlugin, NamespaceFlagAsKubectlSpellsIt) {
  const std::string config = kubeconfig();
  for (const auto& flag : std::vector<std::vector<std::string>>{
           {"-n", "team-b"}, {"-n=team-b"}, {"-nteam-b"}, {"--namespace=team-b"}, {"--namespace", "team-b"}}) {
    std::vector<std::string> args = {"approve", "x/q", "--kubeconfig", config};
    args.insert(args.end(), flag.begin(), flag.end());
    auto r = run(plugin_path(), args);
    EXPECT_EQ(r.status, 2) << flag[0] << "\n" << all(r);
    EXPECT_NE(r.err.find("x/q names namespace x, -n says team-b"), std::string::npos) << flag[0] << "\n" << all(r);
  }
  fs::remove(config);
}

TEST(KubectlPlugin, UsageErrorsExit2) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"explain", "pod", "x"}, "unknown kind \"pod\""},
      {{"explain", "a100"}, "expected KIND NAME or KIND/NAME"},
      {{"status", "--request-timeout", "soon"}, "invalid --request-timeout \"soon\""},
      {{"status", "--namespace"}, "--namespace"},
      {{"approve", "a/b/c"}, "expected NAMESPACE/NAME or NAME"},
      {{"status", "--kubeconfig", "/nonexistent/kubeconfig"}, "/nonexistent/kubeconfig"},
  };
  for (const auto& c : cases) {
    auto r = run(plugin_path(), c.args);
    EXPECT_EQ(r.status, 2) << c.args[0] << " " << c.args[1] << "\n" << all(r);
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.says << "\n" << all(r);
  }
}

TEST(KubectlPlugin, UnreachableServerIsAnError) {
  const std::string config = kubeconfig();
  auto r = run(plugin_path(), {"status", "--kubeconfig", config, "--request-timeout", "2s"});
  EXPECT_EQ(r.status, 2) << all(r);
  EXPECT_NE(r.err.find("error: "), std::string::npos) << all(r);
  fs::remove(config);
}

}  // namespace
