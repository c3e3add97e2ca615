// The local control plane itself: it starts, simulated GPU nodes get Ready,
// the scheduler places GPU pods and kwok runs them, identities authenticate,
// several control planes coexist, stop() and a killed owner leave no process,
// a kept state dir resumes, and the apiserver restart / etcd compaction hooks
// that watch tests rely on work.
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"

namespace {

using gpupool::test::ClusterTest;
using gpupool::test::ControlPlane;
using gpupool::test::NodeSpec;
using gpupool::test::wait_until;
using gpupool::testenv::CommandResult;
using gpupool::testenv::Options;
using std::chrono::seconds;

constexpr const char* kGpu = "nvidia.com/gpu";

NodeSpec gpu_nodes(const std::string& gpus = "8") {
  NodeSpec spec;
  spec.labels = {{"nvidia.com/gpu.present", "true"}, {"gpupool.io/vendor", "nvidia"}};
  spec.capacity = {{kGpu, gpus}};
  return spec;
}

std::string gpu_pod(const std::string& name, const std::string& ns, int gpus) {
  return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\"" + ns +
         "\"},\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"registry.k8s.io/pause:3.10\","
         "\"resources\":{\"limits\":{\"" + kGpu + "\":\"" + std::to_string(gpus) + "\"}}}]}}";
}

// kubectl's stdout, or "" when it failed.
std::string get(const ControlPlane& cp, const std::vector<std::string>& args) {
  CommandResult r = cp.kubectl_result(args);
  return r.status == 0 ? r.out : "";
}

std::string temp_dir(const std::string& name) {
  std::string templ = (std::filesystem::temp_directory_path() / (name + "-XXXXXX")).string();
  if (!::mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
  return templ;
}

// Gone, or a zombie nobody has reaped yet: either way no longer running.
bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::ostringstream buffer;
  buffer << stat.rdbuf();
  std::string content = buffer.str();
  auto close = content.rfind(')');
  return close != std::string::npos && close + 2 < content.size() && content[close + 2] == 'Z';
}

// Processes whose command line mentions `text` (pgrep -f), one pid per line.
std::string processes_mentioning(const std::string& text) {
  return gpupool::testenv::run_command("pgrep", {"-f", "--", text}).out;
}

// The process layer under the launcher (no cluster needed).
TEST(ProcessTest, RunCommandFeedsStdinAndCapturesOutputAndStatus) {
  CommandResult r = gpupool::testenv::run_command("sh", {"-c", "cat; echo oops >&2; exit 3"}, "hello\n");
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.out, "hello\n");
  EXPECT_EQ(r.err, "oops\n");
}

TEST(ProcessTest, RunCommandKillsACommandPastItsTimeout) {
  auto t0 = std::chrono::steady_clock::now();
  CommandResult r = gpupool::testenv::run_command("sleep", {"30"}, "", std::chrono::milliseconds(200));
  EXPECT_EQ(r.status, 128 + SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, seconds(10));
}

TEST(ProcessTest, TerminateEscalatesToSigkillWhenSigtermIsIgnored) {
  std::string dir = temp_dir("gpupool-testenv-proc");
  gpupool::testenv::SpawnSpec spec;
  spec.path = "sh";
  spec.args = {"-c", "trap '' TERM; echo ready; exec sleep 30"};
  spec.log_file = dir + "/log";
  auto p = gpupool::testenv::Process::spawn(spec);
  ASSERT_TRUE(wait_until(
      [&] {
        std::ifstream in(spec.log_file);
        std::string line;
        return std::getline(in, line) && line == "ready";
      },
      seconds(10)));
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(p.terminate(std::chrono::milliseconds(300)), 128 + SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, seconds(10));
  EXPECT_TRUE(process_gone(p.pid()));
  std::filesystem::remove_all(dir);
}

class LocalClusterTest : public ClusterTest {};

TEST_F(LocalClusterTest, SimulatedNodesAreListedReady) {
  auto names = create_kwok_nodes(cluster(), 3, gpu_nodes());
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0], "kwok-node-0");

  std::string out;
  ASSERT_EQ(cluster().kubectl({"get", "nodes"}, &out), 0) << out;
  for (const auto& name : names) {
    std::istringstream lines(out);
    std::string line;
    bool ready = false;
    while (std::getline(lines, line)) {
      std::istringstream fields(line);
      std::string n, status;
      fields >> n >> status;
      ready = ready || (n == name && status == "Ready");
    }
    EXPECT_TRUE(ready) << name << " is not listed Ready in:\n" << out;
  }
  EXPECT_EQ(get(cluster(), {"get", "node", names[1], "-o", "jsonpath={.status.allocatable.nvidia\\.com/gpu}"}), "8");
}

TEST_F(LocalClusterTest, GpuPodIsScheduledToAGpuNodeAndRuns) {
  create_kwok_nodes(cluster(), 2, gpu_nodes());
  NodeSpec cpu_only;
  cpu_only.name_prefix = "kwok-cpu-node-";
  create_kwok_nodes(cluster(), 2, cpu_only);

  std::string out;
  ASSERT_EQ(cluster().kubectl({"apply", "-f", "-"}, &out, gpu_pod("trainer", ns(), 1)), 0) << out;
  std::string phase;
  EXPECT_TRUE(wait_until(
      [&] {
        phase = get(cluster(), {"get", "pod", "trainer", "-n", ns(), "-o", "jsonpath={.status.phase}"});
        return phase == "Running";
      },
      seconds(60)))
      << "pod phase: " << phase;
  std::string node = get(cluster(), {"get", "pod", "trainer", "-n", ns(), "-o", "jsonpath={.spec.nodeName}"});
  // Any GPU node will do: earlier tests on this shared cluster left some
  // (a run scheduled it to kwok-node-2, which the first test made).
  EXPECT_NE(node.rfind(cpu_only.name_prefix, 0), 0u) << "scheduled to the CPU-only node '" << node << "'";
  EXPECT_EQ(get(cluster(), {"get", "node", node, "-o", "jsonpath={.status.allocatable.nvidia\\.com/gpu}"}), "8")
      << "scheduled to '" << node << "', not a GPU node";
  EXPECT_EQ(get(cluster(), {"get", "pod", "trainer", "-n", ns(), "-o",
                            "jsonpath={.status.containerStatuses[0].ready}"}),
            "true");
}

TEST_F(LocalClusterTest, PodAskingForMoreGpusThanAnyNodeHasStaysPending) {
  create_kwok_nodes(cluster(), 2, gpu_nodes());
  std::string out;
  ASSERT_EQ(cluster().kubectl({"apply", "-f", "-"}, &out, gpu_pod("too-big", ns(), 9)), 0) << out;
  std::string reason;
  EXPECT_TRUE(wait_until(
      [&] {
        reason = get(cluster(), {"get", "pod", "too-big", "-n", ns(), "-o",
                                 "jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].reason}"});
        return reason == "Unschedulable";
      },
      seconds(60)))
      << "PodScheduled reason: " << reason;
  EXPECT_EQ(get(cluster(), {"get", "pod", "too-big", "-n", ns(), "-o", "jsonpath={.status.phase}"}), "Pending");
  EXPECT_EQ(get(cluster(), {"get", "pod", "too-big", "-n", ns(), "-o", "jsonpath={.spec.nodeName}"}), "");
  std::string message = get(cluster(), {"get", "pod", "too-big", "-n", ns(), "-o",
                                        "jsonpath={.status.conditions[?(@.type==\"PodScheduled\")].message}"});
  EXPECT_NE(message.find("Insufficient nvidia.com/gpu"), std::string::npos) << message;
}

TEST_F(LocalClusterTest, RecreatingNodesUpdatesTheirCapacityAndDeleteRemovesThem) {
  NodeSpec spec = gpu_nodes("4");
  spec.name_prefix = "kwok-resize-node-";
  auto names = create_kwok_nodes(cluster(), 1, spec);
  ASSERT_EQ(names, std::vector<std::string>{"kwok-resize-node-0"});
  const std::vector<std::string> gpus = {"get", "node", names[0], "-o",
                                         "jsonpath={.status.allocatable.nvidia\\.com/gpu}"};
  EXPECT_EQ(get(cluster(), gpus), "4");
  spec.capacity[kGpu] = "2";
  spec.labels["pool"] = "small";
  create_kwok_nodes(cluster(), 1, spec);
  EXPECT_EQ(get(cluster(), gpus), "2");
  EXPECT_EQ(get(cluster(), {"get", "node", names[0], "-o", "jsonpath={.metadata.labels.pool}"}), "small");
  gpupool::test::delete_nodes(cluster(), names);
  std::string out;
  EXPECT_NE(cluster().kubectl({"get", "node", names[0]}, &out), 0) << out;
}

TEST_F(LocalClusterTest, ProvisionedIdentitiesAuthenticateAndAreAuthorizedByRbac) {
  auto as = [&](const std::string& user, const std::vector<std::string>& args) {
    std::vector<std::string> full = {"--kubeconfig=" + cluster().kubeconfig_for(user)};
    full.insert(full.end(), args.begin(), args.end());
    return gpupool::testenv::run_command(cluster().kubectl_path(), full);
  };
  CommandResult who = as("system:node:kwok-node-3", {"auth", "whoami", "-o", "jsonpath={.status.userInfo.groups}"});
  EXPECT_EQ(who.status, 0) << who.err;
  EXPECT_NE(who.out.find("system:nodes"), std::string::npos) << who.out;

  CommandResult alice = as("alice", {"get", "pods", "-n", ns()});
  EXPECT_NE(alice.status, 0);
  EXPECT_NE(alice.err.find("Forbidden"), std::string::npos) << alice.err;
  EXPECT_EQ(get(cluster(), {"get", "pods", "-n", ns(), "-o", "name"}), "");  // admin may
  EXPECT_THROW(cluster().token_for("mallory"), std::out_of_range);
  EXPECT_THROW(cluster().node_token("kwok-node-99"), std::out_of_range);
}

TEST(ControlPlaneLifecycle, SecondControlPlaneRunsAlongside) {
  ControlPlane& first = gpupool::test::shared_cluster();
  auto second = ControlPlane::start();
  EXPECT_NE(first.server(), second->server());
  std::string out;
  ASSERT_EQ(second->kubectl({"create", "configmap", "only-in-second", "-n", "default"}, &out), 0) << out;
  EXPECT_EQ(get(*second, {"get", "configmap", "only-in-second", "-n", "default", "-o", "name"}),
            "configmap/only-in-second\n");
  EXPECT_NE(first.kubectl({"get", "configmap", "only-in-second", "-n", "default"}, &out), 0);
  auto first_list = first.pids();
  std::set<pid_t> first_pids(first_list.begin(), first_list.end());
  for (pid_t pid : second->pids()) EXPECT_EQ(first_pids.count(pid), 0u);
}

TEST(ControlPlaneLifecycle, StopLeavesNoProcessBehind) {
  auto cp = ControlPlane::start();
  auto pids = cp->pids();
  EXPECT_EQ(pids.size(), 5u);  // etcd, apiserver, controller-manager, scheduler, kwok
  std::string dir = cp->state_dir();
  EXPECT_NE(processes_mentioning(dir), "");
  cp->stop();
  EXPECT_TRUE(cp->pids().empty());
  for (pid_t pid : pids) EXPECT_TRUE(process_gone(pid)) << "pid " << pid << " survived stop()";
  EXPECT_EQ(processes_mentioning(dir), "");
  EXPECT_FALSE(std::filesystem::exists(dir)) << "temporary state dir left behind";
}

TEST(ControlPlaneLifecycle, StartFailureNamesTheComponentAndShowsItsLog) {
  Options opts;
  opts.controller_manager = false;
  opts.scheduler = false;
  opts.kwok = false;
  opts.extra_apiserver_flags = {"--no-such-flag-for-testenv"};
  try {
    ControlPlane::start(opts);
    ADD_FAILURE() << "start() succeeded with a bad apiserver flag";
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("kube-apiserver exited"), std::string::npos) << what;
    EXPECT_NE(what.find("unknown flag: --no-such-flag-for-testenv"), std::string::npos) << what;
  }
  EXPECT_EQ(processes_mentioning("no-such-flag-for-testenv"), "");
}

TEST(ControlPlaneLifecycle, KeptStateDirResumesAfterRestart) {
  std::string dir = temp_dir("gpupool-testenv-kept");
  Options opts;
  opts.state_dir = dir;
  opts.scheduler = false;
  opts.kwok = false;
  std::string token, ca, server;
  {
    auto cp = ControlPlane::start(opts);
    token = cp->admin_token();
    server = cp->server();
    ca = cp->ca_pem();
    std::string out;
    ASSERT_EQ(cp->kubectl({"create", "configmap", "survivor", "-n", "default", "--from-literal=key=kept"}, &out), 0)
        << out;
    cp->stop();
    EXPECT_EQ(processes_mentioning(dir), "");
  }
  ASSERT_TRUE(std::filesystem::exists(dir + "/etcd")) << "a kept state dir must stay";
  {
    auto cp = ControlPlane::start(opts);
    EXPECT_EQ(cp->admin_token(), token);
    EXPECT_EQ(cp->ca_pem(), ca);
    EXPECT_EQ(cp->server(), server) << "the ports of the last start are reused while free";
    EXPECT_EQ(get(*cp, {"get", "configmap", "survivor", "-n", "default", "-o", "jsonpath={.data.key}"}), "kept");
  }
  std::filesystem::remove_all(dir);
}

TEST(ControlPlaneLifecycle, ApiserverRestartsOnItsPortAndCompactionExpiresOldVersions) {
  Options opts;
  opts.controller_manager = false;
  opts.scheduler = false;
  opts.kwok = false;
  opts.extra_apiserver_flags = {"--watch-cache=false"};  // watches go to etcd, which forgets compacted history
  auto cp = ControlPlane::start(opts);
  std::string out;
  ASSERT_EQ(cp->kubectl({"create", "configmap", "c", "-n", "default", "--from-literal=v=1"}, &out), 0) << out;
  std::string rv1 = get(*cp, {"get", "configmap", "c", "-n", "default", "-o", "jsonpath={.metadata.resourceVersion}"});
  ASSERT_EQ(cp->kubectl({"patch", "configmap", "c", "-n", "default", "-p", "{\"data\":{\"v\":\"2\"}}"}, &out), 0)
      << out;

  std::string server = cp->server();
  pid_t old_pid = cp->pids()[1];
  cp->restart_apiserver();
  EXPECT_EQ(cp->server(), server);
  EXPECT_NE(cp->pids()[1], old_pid);
  EXPECT_EQ(get(*cp, {"get", "configmap", "c", "-n", "default", "-o", "jsonpath={.data.v}"}), "2");

  std::int64_t revision = cp->compact_etcd();
  EXPECT_GT(revision, std::stoll(rv1));
  CommandResult watch = cp->kubectl_result(
      {"get", "--raw", "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=5&resourceVersion=" + rv1});
  std::string both = watch.out + watch.err;
  EXPECT_TRUE(both.find("410") != std::string::npos || both.find("Expired") != std::string::npos ||
              both.find("Gone") != std::string::npos)
      << both;
}

// Not a test on its own: the child that KilledOwnerTakesComponentsDown starts
// and SIGKILLs.
TEST(ControlPlaneHelper, StartThenWaitToBeKilled) {
  const char* pid_file = std::getenv("GPUPOOL_TESTENV_HELPER_PID_FILE");
  if (!pid_file) GTEST_SKIP() << "runs only as the child of KilledOwnerTakesComponentsDown";
  Options opts;
  opts.state_dir = std::getenv("GPUPOOL_TESTENV_HELPER_STATE");  // the parent removes it
  auto cp = ControlPlane::start(opts);
  std::string pids;
  for (pid_t pid : cp->pids()) pids += std::to_string(pid) + "\n";
  std::string tmp = std::string(pid_file) + ".tmp";
  std::ofstream(tmp) << pids;
  std::filesystem::rename(tmp, pid_file);
  for (;;) ::pause();
}

TEST(ControlPlaneLifecycle, KilledOwnerTakesComponentsDown) {
  // The orphaned components come to this process instead of init, so they can
  // be reaped here rather than linger as zombies until init gets to them.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  struct Unset {
    ~Unset() { ::prctl(PR_SET_CHILD_SUBREAPER, 0); }
  } unset;
  std::string dir = temp_dir("gpupool-testenv-owner");
  std::string pid_file = dir + "/pids";
  gpupool::testenv::SpawnSpec spec;
  spec.path = "/proc/self/exe";
  spec.args = {"--gtest_filter=ControlPlaneHelper.StartThenWaitToBeKilled"};
  spec.env = {"GPUPOOL_TESTENV_HELPER_PID_FILE=" + pid_file, "GPUPOOL_TESTENV_HELPER_STATE=" + dir + "/state",
              "GPUPOOL_CONTROLPLANE_BIN=" + gpupool::testenv::find_bin_dir()};
  spec.log_file = dir + "/helper.log";
  auto helper = gpupool::testenv::Process::spawn(spec);
  bool started = wait_until([&] { return std::filesystem::exists(pid_file) || !helper.running(); }, seconds(180));
  ASSERT_TRUE(started && std::filesystem::exists(pid_file))
      << "helper did not start a control plane:\n" << std::ifstream(spec.log_file).rdbuf();
  std::vector<pid_t> pids;
  std::ifstream in(pid_file);
  for (pid_t pid; in >> pid;) pids.push_back(pid);
  ASSERT_EQ(pids.size(), 5u);

  helper.signal(SIGKILL);
  helper.terminate(std::chrono::milliseconds(0));  // reap it
  for (pid_t pid : pids) {
    EXPECT_TRUE(wait_until(
        [&] {
          // Ours once orphaned: reap it (a dying Go process is a zombie leader
          // until all its threads are gone, and cannot be reaped before).
          pid_t r = ::waitpid(pid, nullptr, WNOHANG);
          return r == pid || (r < 0 && errno == ECHILD && process_gone(pid));
        },
        seconds(30)))
        << "component pid " << pid << " outlived its killed owner";
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
