// The local demo (README command 1, tools/dev/run.sh): `gpupool-localcluster
// demo` started in the background on a state dir of its own (its own control
// plane, not the tests' shared one) reaches "demo: converged", and the API
// says so too: every pool Ready with the capacity its nodes' GPUs give, every
// quota Granted, the tenants' pods past the quota gate or waiting at it as
// the manifests intend. SIGTERM then stops it with status 0 and no process
// left behind; run again on the same state dir, it resumes and converges.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "gpupool/kube/client.h"
#include "gpupool/kube/config.h"
#include "gpupool/testenv/process.h"
#include "gpupool/testenv/wait.h"
#include "support/kube_test_helpers.h"

namespace gpupool::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// test/CMakeLists.txt names the build's gpupool-localcluster.
std::string localcluster_bin() { return GPUPOOL_LOCALCLUSTER_BIN; }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string tail(const std::string& text, std::size_t n = 6000) {
  return text.size() > n ? "..." + text.substr(text.size() - n) : text;
}

const rapidjson::Value* at(const rapidjson::Value& v, std::initializer_list<const char*> path) {
  const rapidjson::Value* cur = &v;
  for (const char* p : path) {
    if (!cur->IsObject() || !cur->HasMember(p)) return nullptr;
    cur = &(*cur)[p];
  }
  return cur;
}
std::string str(const rapidjson::Value& v, std::initializer_list<const char*> path) {
  const auto* x = at(v, path);
  if (x == nullptr) return "";
  if (x->IsString()) return x->GetString();
  if (x->IsInt64()) return std::to_string(x->GetInt64());
  return "";
}
std::string condition(const rapidjson::Value& obj, const std::string& type) {
  const auto* c = at(obj, {"status", "conditions"});
  if (c == nullptr || !c->IsArray()) return "";
  for (const auto& x : c->GetArray()) {
    if (str(x, {"type"}) == type) return str(x, {"status"});
  }
  return "";
}

// The pids of `root`'s descendants now (from /proc/*/stat's ppid).
std::set<pid_t> descendants(pid_t root) {
  std::map<pid_t, std::vector<pid_t>> children;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_file(e.path().string() + "/stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    children[ppid].push_back(static_cast<pid_t>(std::stol(name)));
  }
  std::set<pid_t> out;
  std::vector<pid_t> todo{root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    for (pid_t c : children[p]) {
      if (out.insert(c).second) todo.push_back(c);
    }
  }
  return out;
}

// Running (not a zombie) processes whose command line mentions `text`.
std::vector<std::string> processes_mentioning(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (static_cast<pid_t>(std::stol(name)) == ::getpid()) continue;
    std::string cmdline = read_file(e.path().string() + "/cmdline");
    for (char& c : cmdline) {
      if (c == '\0') c = ' ';
    }
    const std::string stat = read_file(e.path().string() + "/stat");
    const auto close = stat.rfind(')');
    const bool zombie = close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
    if (!zombie && cmdline.find(text) != std::string::npos) out.push_back(name + ": " + cmdline.substr(0, 300));
  }
  return out;
}

// Field 22 of /proc/<pid>/stat, the start time: with the pid, names a
// process even after its pid is reused. Empty when there is no such process.
std::string start_time(pid_t pid) {
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return "";
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
  }
  return field;
}

// The process `pid` that started at `started` has exited (a zombie counts).
bool gone(pid_t pid, const std::string& started) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return true;
  if (start_time(pid) != started) return true;  // the pid was reused by another process
  return close + 2 < stat.size() && stat[close + 2] == 'Z';
}

class DemoTest : public ::testing::Test {
 protected:
  static constexpr int kGpusPerNode = 4;

  void SetUp() override {
    bin_ = localcluster_bin();
    ASSERT_TRUE(fs::exists(bin_)) << bin_ << " is missing: build the target gpupool-localcluster";
    dir_ = make_temp_dir("demo");
    state_ = dir_ + "/state";
  }
  void TearDown() override {
    if (demo_.valid()) demo_.terminate(20s);
    if (HasFailure()) {
      std::cerr << "demo output and logs kept in " << dir_ << "\n";
    } else {
      remove_tree(dir_);
    }
  }

  // Starts the demo; its stdout and stderr go to `out`.
  void start(const std::string& out) {
    out_ = out;
    testenv::SpawnSpec spec;
    spec.path = bin_;
    const std::string src = GPUPOOL_SOURCE_DIR;
    spec.args = {"demo", "--state-dir", state_, "--nodes", "1", "--gpus-per-node", std::to_string(kGpusPerNode),
                 "--agent", GPUPOOL_AGENT_BIN, "--controller", GPUPOOL_CONTROLLER_BIN, "--gpupoolctl",
                 GPUPOOL_GPUPOOLCTL_BIN, "--manifests", src + "/tools/dev/demo", "--workloads",
                 src + "/tools/dev/demo/workloads"};
    spec.log_file = out;
    demo_ = testenv::Process::spawn(spec);
  }

  // Waits for the line "demo: converged" (or the demo's exit).
  void wait_converged(std::chrono::seconds deadline) {
    const bool ok = testenv::wait_until(
        [&] { return read_file(out_).find("\ndemo: converged\n") != std::string::npos || !demo_.running(); },
        deadline, 500ms);
    ASSERT_TRUE(demo_.running()) << "the demo exited with status " << demo_.exit_status().value_or(-1) << ":\n"
                                 << tail(read_file(out_));
    ASSERT_TRUE(ok) << "no \"demo: converged\" in " << deadline.count() << " s:\n" << tail(read_file(out_));
    EXPECT_TRUE(fs::exists(state_ + "/demo/converged"));
  }

  kube::Client client() {
    kube::KubeconfigOptions ko;
    ko.path = state_ + "/kubeconfig";
    return kube::Client(kube::load_kubeconfig(ko));
  }

  // What converged means, read from the API: every pool Ready with the
  // capacity of 1 node of kGpusPerNode GPUs, every quota Granted.
  void expect_converged_in_api() {
    kube::Client c = client();
    const int m = kGpusPerNode;
    const std::map<std::string, std::map<std::string, std::string>> capacity = {
        // GPUs 0 and 1: 3g.40gb + 2g.20gb + 2x 1g.10gb; the others one 7g.80gb.
        {"a100-80gb-mig",
         {{"nvidia.com/mig-1g.10gb", "4"}, {"nvidia.com/mig-2g.20gb", "2"}, {"nvidia.com/mig-3g.40gb", "2"},
          {"nvidia.com/mig-7g.80gb", std::to_string(m - 2)}}},
        {"h100-train", {{"nvidia.com/gpu", std::to_string(m)}}},
        {"mi300x-cpx", {{"amd.com/gpu", std::to_string(8 * m)}}},  // CPX: 8 partitions per GPU
        {"t4-shared", {{"nvidia.com/gpu.shared", std::to_string(4 * m)}}},  // time-sliced, 4 replicas
    };
    auto pools = c.list(kube::ResourceRef{{"gpupool.io", "v1alpha1", "gpupools"}, "", "", ""});
    std::set<std::string> seen;
    for (const auto& p : pools["items"].GetArray()) {
      const std::string name = str(p, {"metadata", "name"});
      seen.insert(name);
      EXPECT_EQ(condition(p, "Ready"), "True") << "pool " << name << ": " << kube::to_json(p["status"]);
      EXPECT_EQ(str(p, {"status", "nodes", "total"}), "1") << name;
      EXPECT_EQ(str(p, {"status", "nodes", "ready"}), "1") << name;
      std::map<std::string, std::string> got;
      if (const auto* cap = at(p, {"status", "capacity"}); cap && cap->IsObject()) {
        for (const auto& r : cap->GetObject()) {
          got[r.name.GetString()] = r.value.IsString() ? r.value.GetString() : std::to_string(r.value.GetInt64());
        }
      }
      auto it = capacity.find(name);
      ASSERT_NE(it, capacity.end()) << "unexpected pool " << name;
      EXPECT_EQ(got, it->second) << "capacity of pool " << name;
    }
    EXPECT_EQ(seen.size(), capacity.size());

    auto quotas = c.list(kube::ResourceRef{{"gpupool.io", "v1alpha1", "tenantquotas"}, "", "", ""});
    std::set<std::string> quota_names;
    for (const auto& q : quotas["items"].GetArray()) {
      const std::string name = str(q, {"metadata", "namespace"}) + "/" + str(q, {"metadata", "name"});
      quota_names.insert(name);
      EXPECT_EQ(str(q, {"status", "phase"}), "Granted") << name << ": " << kube::to_json(q["status"]);
      EXPECT_EQ(condition(q, "Granted"), "True") << name;
    }
    EXPECT_EQ(quota_names, (std::set<std::string>{"ml-inference/inference-mi300x", "ml-inference/inference-t4",
                                                  "ml-research/research-a100", "ml-research/research-h100"}));

    // The workloads: per Deployment, pods past the gate and pods waiting at it.
    const std::map<std::string, std::pair<int, int>> want = {
        {"ml-research/train-a100", {2, 1}}, {"ml-research/notebooks", {2, 0}}, {"ml-research/train-h100", {1, 1}},
        {"ml-inference/serve-t4", {3, 0}},  {"ml-inference/serve-mi300x", {1, 1}}};
    std::map<std::string, std::pair<int, int>> got;
    const bool settled = testenv::wait_until(
        [&] {
          got.clear();
          for (const char* ns : {"ml-research", "ml-inference"}) {
            auto pods = c.list(kube::ResourceRef{kube::core::pods(), ns, "", ""});
            for (const auto& p : pods["items"].GetArray()) {
              if (at(p, {"metadata", "deletionTimestamp"}) != nullptr) continue;
              const std::string app = std::string(ns) + "/" + str(p, {"metadata", "labels", "app"});
              const auto* gates = at(p, {"spec", "schedulingGates"});
              const bool gated = gates && gates->IsArray() && !gates->Empty();
              auto& [admitted, waiting] = got[app];
              (gated ? waiting : admitted) += 1;
            }
          }
          return got == want;
        },
        60s, 500ms);
    EXPECT_TRUE(settled) << [&] {
      std::string s;
      for (const auto& [app, n] : got) s += app + ": " + std::to_string(n.first) + " admitted, " + std::to_string(n.second) + " waiting\n";
      return s;
    }();
  }

  // SIGTERM: exit 0 within the deadline, nothing it started left running.
  void stop_and_expect_clean() {
    std::map<pid_t, std::string> children;  // pid -> start time
    for (pid_t p : descendants(demo_.pid())) children[p] = start_time(p);
    EXPECT_GE(children.size(), 4u + 1u + 4u) << "agents, controller, control plane";
    demo_.signal(SIGTERM);
    ASSERT_TRUE(demo_.wait_until(std::chrono::steady_clock::now() + 60s)) << tail(read_file(out_));
    EXPECT_EQ(demo_.exit_status(), 0) << tail(read_file(out_));
    std::vector<pid_t> left;
    testenv::wait_until([&] {  // reaped by now; gone from /proc a moment later at most
      left.clear();
      for (const auto& [p, started] : children) {
        if (!gone(p, started)) left.push_back(p);
      }
      return left.empty();
    }, 5s);
    EXPECT_TRUE(left.empty()) << left.size() << " child process(es) left, first pid " << (left.empty() ? 0 : left[0]);
    const auto mentioning = processes_mentioning(state_);
    EXPECT_TRUE(mentioning.empty()) << "still running: " << mentioning.front();
    EXPECT_FALSE(fs::exists(state_ + "/demo/converged"));
    EXPECT_TRUE(fs::exists(state_ + "/kubeconfig")) << "the state is kept";
  }

  std::string bin_, dir_, state_, out_;
  testenv::Process demo_;
};

TEST_F(DemoTest, ConvergesStopsCleanlyAndResumes) {
  const auto t0 = std::chrono::steady_clock::now();
  start(dir_ + "/first.out");
  // Bounds, not expectations: the whole test takes ~35 s alone and took 101 s
  // on a 2-core machine running other integration tests beside it.
  ASSERT_NO_FATAL_FAILURE(wait_converged(300s));
  const auto converged_after = std::chrono::steady_clock::now() - t0;
  ASSERT_NO_FATAL_FAILURE(expect_converged_in_api());
  const std::string screen = read_file(out_);
  for (const char* section : {"GPUPOOLS", "GPUNODES", "TENANTQUOTAS (all namespaces)", "PODS WAITING FOR QUOTA",
                              "kubectl gpupool status", "Stop with Ctrl-C"}) {
    EXPECT_NE(screen.find(section), std::string::npos) << section << " missing from the screen:\n" << tail(screen);
  }
  std::string pool_uid;
  {
    auto pool = client().get(kube::ResourceRef{{"gpupool.io", "v1alpha1", "gpupools"}, "", "a100-80gb-mig", ""});
    pool_uid = str(pool, {"metadata", "uid"});
  }
  ASSERT_NO_FATAL_FAILURE(stop_and_expect_clean());
  std::cerr << "first run: converged after "
            << std::chrono::duration_cast<std::chrono::seconds>(converged_after).count() << " s\n";

  // Again on the same state: the same cluster (objects kept), converged again.
  const auto t1 = std::chrono::steady_clock::now();
  start(dir_ + "/second.out");
  ASSERT_NO_FATAL_FAILURE(wait_converged(240s));
  std::cerr << "second run: converged after "
            << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - t1).count() << " s\n";
  ASSERT_NO_FATAL_FAILURE(expect_converged_in_api());
  auto pool = client().get(kube::ResourceRef{{"gpupool.io", "v1alpha1", "gpupools"}, "", "a100-80gb-mig", ""});
  EXPECT_EQ(str(pool, {"metadata", "uid"}), pool_uid) << "the second run made a new cluster";
  ASSERT_NO_FATAL_FAILURE(stop_and_expect_clean());
}

}  // namespace
}  // namespace gpupool::test
