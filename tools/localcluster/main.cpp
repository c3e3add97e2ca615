// gpupool-localcluster: a local Kubernetes control plane with simulated GPU
// nodes, for trying the operator by hand or running a command against it.
//
//   gpupool-localcluster up  [flags]            start, print the kubeconfig, wait for ^C / SIGTERM
//   gpupool-localcluster run [flags] -- CMD...  start, run CMD with KUBECONFIG set, stop when it exits
//   gpupool-localcluster demo [flags]           the README's demo (demo.h): nodes of four GPU models with
//                                               agents, the controller, tools/dev/demo applied, a live screen
//
// Flags: --state-dir DIR (keep the cluster there; starting again resumes it;
// default: a temporary dir removed on exit), --nodes N (default 2),
// --gpus-per-node G (default 8), --log-format text|json,
// --log-level trace|debug|info|warn|error, --agent PATH (install the CRDs and
// run that gpupool-agent on every node with G simulated GPUs of --gpu-model,
// default a100-sxm4-80gb; the agents then advertise the GPUs, instead of the
// nodes being created with nvidia.com/gpu capacity).
// demo: --agent PATH --controller PATH --manifests DIR (a kustomization)
// [--workloads DIR] [--gpupoolctl PATH] (for the printed hints); --nodes is
// per model there (default 1: four nodes), --gpus-per-node 2..16 (default 8).
//
// SIGINT/SIGTERM while starting exit at once (the components die with this
// process); once up, they stop the cluster cleanly.
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "demo.h"
#include "gpupool/common/log.h"
#include "gpupool/schema/crd_schema.h"
#include "gpupool/testenv/namespaces.h"
#include "gpupool/testenv/control_plane.h"
#include "gpupool/testenv/kwok_nodes.h"
#include "gpupool/testenv/process.h"

namespace {

namespace testenv = gpupool::testenv;

constexpr const char* kUsage =
    "usage: gpupool-localcluster up  [--state-dir DIR] [--nodes N] [--gpus-per-node G] [--log-format text|json]\n"
    "                                [--agent PATH [--gpu-model ID]]\n"
    "       gpupool-localcluster run [--state-dir DIR] [--nodes N] [--gpus-per-node G] [--log-format text|json]"
    " [--agent PATH [--gpu-model ID]] -- CMD [ARGS...]\n"
    "       gpupool-localcluster demo [--state-dir DIR] [--nodes N] [--gpus-per-node G] --agent PATH --controller PATH\n"
    "                                 --manifests DIR [--workloads DIR] [--gpupoolctl PATH]\n"
    "\n"
    "up   starts the cluster, prints its kubeconfig and waits for SIGINT/SIGTERM, then stops it.\n"
    "run  starts the cluster, runs CMD with KUBECONFIG set (and kubectl on PATH), forwards\n"
    "     SIGINT/SIGTERM to it, stops the cluster when it exits and exits with its status.\n"
    "demo starts the cluster with N simulated nodes of each of a100-sxm4-80gb, h100-sxm5-80gb, t4-16gb and\n"
    "     mi300x-192gb (default 1 each, G GPUs each, default 8), a gpupool-agent per node and\n"
    "     gpupool-controller (webhooks on loopback), applies the kustomization DIR (-k) and then the\n"
    "     workloads (-f) once the quota gate covers the tenants, and shows pools, nodes, quotas and pods\n"
    "     waiting for quota, refreshed every 2 s, until SIGINT/SIGTERM; \"demo: converged\" on stdout\n"
    "     (and the file DIR/demo/converged) says every pool is Ready and every quota Granted.\n";

struct Args {
  std::string mode;
  std::string state_dir;
  std::optional<int> nodes;          // default 2 (up, run), 1 per model (demo)
  std::optional<int> gpus_per_node;  // default 8
  gpupool::log::Format format = gpupool::log::Format::Text;
  std::string level = "info";
  std::string agent;                      // gpupool-agent to run on every node; "" = none
  std::string gpu_model = "a100-sxm4-80gb";
  bool gpu_model_set = false;
  std::string controller, manifests, workloads, gpupoolctl;  // demo
  std::vector<std::string> command;
};

std::optional<int> parse_count(const std::string& s, int max) {
  try {
    size_t used = 0;
    int v = std::stoi(s, &used);
    if (used == s.size() && v >= 0 && v <= max) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// Returns an error message, or "" when the arguments are good.
std::string parse_args(int argc, char** argv, Args& a) {
  if (argc < 2) return "missing command";
  a.mode = argv[1];
  if (a.mode != "up" && a.mode != "run" && a.mode != "demo") return "unknown command '" + a.mode + "'";
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      for (++i; i < argc; ++i) a.command.emplace_back(argv[i]);
      break;
    }
    std::string name = arg, value;
    bool inline_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inline_value = true;
    }
    auto take = [&]() -> bool {
      if (inline_value) return true;
      if (i + 1 >= argc) return false;
      value = argv[++i];
      return true;
    };
    if (name == "--state-dir") {
      if (!take() || value.empty()) return "--state-dir needs a directory";
      a.state_dir = value;
    } else if (name == "--nodes") {
      auto n = take() ? parse_count(value, 1000) : std::nullopt;
      if (!n) return "--nodes needs a count from 0 to 1000";
      a.nodes = *n;
    } else if (name == "--gpus-per-node") {
      auto n = take() ? parse_count(value, 1024) : std::nullopt;
      if (!n) return "--gpus-per-node needs a count from 0 to 1024";
      a.gpus_per_node = *n;
    } else if (name == "--log-format") {
      auto f = take() ? gpupool::log::parse_format(value) : std::nullopt;
      if (!f) return "--log-format must be text or json";
      a.format = *f;
    } else if (name == "--log-level") {
      if (!take() || !gpupool::log::parse_level(value)) return "--log-level must be trace, debug, info, warn or error";
      a.level = value;
    } else if (name == "--agent") {
      if (!take() || value.empty()) return "--agent needs the path of gpupool-agent";
      a.agent = value;
    } else if (name == "--gpu-model") {
      if (!take() || value.empty()) return "--gpu-model needs a catalog id (a100-sxm4-80gb)";
      a.gpu_model = value;
      a.gpu_model_set = true;
    } else if (name == "--controller" || name == "--manifests" || name == "--workloads" || name == "--gpupoolctl") {
      if (!take() || value.empty()) return name + " needs a path";
      (name == "--controller" ? a.controller : name == "--manifests" ? a.manifests
                                             : name == "--workloads" ? a.workloads : a.gpupoolctl) = value;
    } else if (name == "-h" || name == "--help") {
      return "help";
    } else {
      return "unknown flag '" + arg + "'";
    }
  }
  if (a.mode == "run" && a.command.empty()) return "run needs a command after --";
  if (a.mode == "up" && !a.command.empty()) return "up takes no command";
  if (a.mode == "demo") {
    if (!a.command.empty()) return "demo takes no command";
    if (a.agent.empty() || a.controller.empty() || a.manifests.empty()) {
      return "demo needs --agent, --controller and --manifests";
    }
    if (a.gpu_model_set) return "demo runs four GPU models; --gpu-model is for up and run";
    if (a.gpus_per_node && (*a.gpus_per_node < 2 || *a.gpus_per_node > 16)) {
      return "demo needs --gpus-per-node from 2 to 16 (the A100 pool's MIG layout names GPUs 0 and 1)";
    }
    if (a.nodes && (*a.nodes < 1 || *a.nodes > 100)) return "demo needs --nodes (per model) from 1 to 100";
  } else if (!a.controller.empty() || !a.manifests.empty() || !a.workloads.empty() || !a.gpupoolctl.empty()) {
    return "--controller, --manifests, --workloads and --gpupoolctl are for demo";
  }
  return "";
}

// Waits for SIGINT/SIGTERM; returns non-zero if a component died meanwhile.
int wait_for_signal(const sigset_t& signals, const testenv::ControlPlane& cluster) {
  size_t components = cluster.pids().size();
  timespec tick{1, 0};
  for (;;) {
    siginfo_t info{};
    int sig = sigtimedwait(&signals, &info, &tick);
    if (sig == SIGINT || sig == SIGTERM) {
      spdlog::info("localcluster: got {}, stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
      return 0;
    }
    if (cluster.pids().size() != components) {
      spdlog::error("localcluster: a control-plane component exited; logs are in {}", cluster.log_dir());
      return 1;
    }
  }
}

// Runs the command and waits for it, forwarding SIGINT/SIGTERM. Returns its status.
int run_command(const sigset_t& signals, const testenv::ControlPlane& cluster, const std::vector<std::string>& cmd) {
  testenv::SpawnSpec spec;
  spec.path = cmd.front();
  spec.args.assign(cmd.begin() + 1, cmd.end());
  const char* path = std::getenv("PATH");
  spec.env = {"KUBECONFIG=" + cluster.kubeconfig_path(),
              "PATH=" + cluster.bin_dir() + (path && *path ? std::string(":") + path : "")};
  // Same process group, so the command keeps the terminal; SIGTERM (not KILL)
  // if this process dies, so it can clean up.
  spec.new_process_group = false;
  spec.death_signal = SIGTERM;
  testenv::Process child = testenv::Process::spawn(spec);
  spdlog::info("localcluster: running {} (pid {})", cmd.front(), child.pid());
  timespec tick{0, 200 * 1000 * 1000};
  while (child.running()) {
    siginfo_t info{};
    int sig = sigtimedwait(&signals, &info, &tick);
    // A terminal's ^C already reached the whole process group (SI_KERNEL);
    // forward only what was sent to this process alone.
    if ((sig == SIGINT || sig == SIGTERM) && info.si_code != SI_KERNEL) {
      spdlog::info("localcluster: forwarding {} to {}", sig == SIGINT ? "SIGINT" : "SIGTERM", cmd.front());
      child.signal(sig);
    }
  }
  int status = child.exit_status().value_or(1);
  spdlog::info("localcluster: {} exited with status {}", cmd.front(), status);
  return status;
}

// The demo on the started cluster: its start on a worker thread (SIGINT or
// SIGTERM meanwhile cancels it, a second one exits at once), then the screen
// until SIGINT/SIGTERM; its processes are stopped before returning.
int run_demo(const Args& args, int nodes, int gpus_per_node, const sigset_t& signals,
             const testenv::ControlPlane& cluster) {
  gpupool::localcluster::DemoOptions opts;
  opts.agent = args.agent;
  opts.controller = args.controller;
  opts.gpupoolctl = args.gpupoolctl;
  opts.manifests = args.manifests;
  opts.workloads = args.workloads;
  opts.nodes = nodes;
  opts.gpus_per_node = gpus_per_node;
  gpupool::localcluster::Demo demo(cluster, opts);
  std::atomic<bool> cancel{false};
  std::atomic<bool> done{false};
  std::exception_ptr error;
  std::thread starter([&] {
    try {
      demo.start(cancel);
    } catch (...) {
      error = std::current_exception();
    }
    done = true;
  });
  while (!done) {
    timespec tick{0, 100 * 1000 * 1000};
    const int sig = sigtimedwait(&signals, nullptr, &tick);
    if (sig == SIGINT || sig == SIGTERM) {
      if (cancel) {
        spdlog::warn("localcluster: interrupted again; exiting now");
        std::_Exit(128 + sig);
      }
      spdlog::info("localcluster: got {} while starting the demo; stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
      cancel = true;
    }
  }
  starter.join();
  int status = 0;
  if (cancel) {
    status = 0;
  } else if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      spdlog::error("localcluster: demo start failed: {} (logs: {}, {}; to start over with a new cluster, remove {})",
                    e.what(), demo.demo_dir(), cluster.log_dir(), cluster.state_dir());
    }
    status = 1;
  } else {
    try {
      status = demo.show(signals);
    } catch (const std::exception& e) {
      spdlog::error("localcluster: {}", e.what());
      status = 1;
    }
  }
  demo.stop();
  spdlog::info("localcluster: demo stopped; stopping the control plane (state kept in {})", cluster.state_dir());
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (std::string err = parse_args(argc, argv, args); !err.empty()) {
    if (err != "help") std::fprintf(stderr, "gpupool-localcluster: %s\n", err.c_str());
    std::fputs(kUsage, stderr);
    return err == "help" ? 0 : 2;
  }
  gpupool::log::init(args.format, args.level);

  // Blocked before any thread exists, so every thread inherits the mask and
  // the signals wait for sigtimedwait (children get an empty mask).
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  // Start on a worker thread so that ^C during a long start (the first build
  // of the binaries, a slow machine) ends the process at once; its children
  // die with it (PR_SET_PDEATHSIG).
  // Without --state-dir the cluster lives in a temporary dir made here, so it
  // can be removed even when a start is interrupted.
  std::string temp_state;
  if (args.state_dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    temp_state = std::string(tmp && *tmp ? tmp : "/tmp") + "/gpupool-localcluster-XXXXXX";
    if (!::mkdtemp(temp_state.data())) {
      spdlog::error("localcluster: cannot create a temporary dir under {}", temp_state);
      return 1;
    }
    args.state_dir = temp_state;
  }
  auto remove_temp_state = [&] {
    if (temp_state.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(temp_state, ec);
  };

  const bool demo_mode = args.mode == "demo";
  const int node_count = args.nodes.value_or(demo_mode ? 1 : 2);
  const int gpus_per_node = args.gpus_per_node.value_or(8);

  std::unique_ptr<testenv::ControlPlane> cluster;
  std::vector<std::string> nodes;
  std::vector<testenv::Process> agents;  // stopped before the cluster
  std::exception_ptr start_error;
  std::atomic<bool> start_done{false};
  std::thread starter([&] {
    try {
      testenv::Options opts;
      opts.state_dir = args.state_dir;
      cluster = testenv::ControlPlane::start(opts);
      // The CRDs and the agents' namespace: the controller needs them, agents or not.
      auto r = cluster->kubectl_result({"apply", "--server-side", "-f", "-"},
                                       std::string(gpupool::schema::builtin_crds_yaml()));
      if (r.status != 0) throw std::runtime_error("installing the CRDs failed: " + r.err);
      r = cluster->kubectl_result({"wait", "--for=condition=Established", "--timeout=60s", "crd", "--all"});
      if (r.status != 0) throw std::runtime_error("the CRDs did not become Established: " + r.err);
      testenv::create_namespace(*cluster, "gpupool-system");
      if (demo_mode) {  // the demo makes its own nodes (demo.cpp)
        start_done = true;
        return;
      }
      testenv::NodeSpec spec;
      spec.labels = {{"nvidia.com/gpu.present", "true"}, {"gpupool.io/vendor", "nvidia"}};
      if (args.agent.empty()) spec.capacity = {{"nvidia.com/gpu", std::to_string(gpus_per_node)}};
      nodes = testenv::create_kwok_nodes(*cluster, node_count, spec);
      spdlog::info("localcluster: {} simulated node(s) with {} GPUs each are Ready", nodes.size(), gpus_per_node);
      if (!args.agent.empty()) {
        for (const auto& n : nodes) {
          testenv::SpawnSpec a;
          a.path = args.agent;
          a.args = {"--kubeconfig", cluster->kubeconfig_path(), "--node-name", n, "--backend", "simulated",
                    "--simulated-gpus", args.gpu_model + "=" + std::to_string(gpus_per_node),
                    "--simulated-state", args.state_dir + "/agent-" + n + ".json", "--metrics-bind-address=0",
                    "--health-probe-bind-address=0", "--log-format=json"};
          a.log_file = args.state_dir + "/agent-" + n + ".log";
          agents.push_back(testenv::Process::spawn(a));
        }
        spdlog::info("localcluster: gpupool-agent runs on each node with {} x {} (logs: {}/agent-<node>.log)",
                     gpus_per_node, args.gpu_model, args.state_dir);
      }
    } catch (...) {
      start_error = std::current_exception();
    }
    start_done = true;
  });
  while (!start_done) {
    timespec tick{0, 100 * 1000 * 1000};
    int sig = sigtimedwait(&signals, nullptr, &tick);
    if (sig == SIGINT || sig == SIGTERM) {
      spdlog::warn("localcluster: interrupted while starting; exiting now");
      remove_temp_state();
      std::_Exit(128 + sig);
    }
  }
  starter.join();
  if (start_error) {
    try {
      std::rethrow_exception(start_error);
    } catch (const std::exception& e) {
      spdlog::error("localcluster: start failed: {}", e.what());
    }
    if (cluster) cluster->stop();
    remove_temp_state();
    return 1;
  }

  int status = 0;
  spdlog::info("localcluster: ready; kubeconfig {}", cluster->kubeconfig_path());
  if (demo_mode) {
    status = run_demo(args, node_count, gpus_per_node, signals, *cluster);
    cluster->stop();
    remove_temp_state();
    return status;
  }
  spdlog::info("localcluster: try: KUBECONFIG={} {} get nodes", cluster->kubeconfig_path(), cluster->kubectl_path());
  try {
    if (args.mode == "up") {
      std::printf("kubeconfig: %s\n", cluster->kubeconfig_path().c_str());
      std::printf("try:        KUBECONFIG=%s %s get nodes\n", cluster->kubeconfig_path().c_str(),
                  cluster->kubectl_path().c_str());
      std::printf("stop with ^C (SIGINT) or SIGTERM\n");
      std::fflush(stdout);
      status = wait_for_signal(signals, *cluster);
    } else {
      status = run_command(signals, *cluster, args.command);
    }
  } catch (const std::exception& e) {
    spdlog::error("localcluster: {}", e.what());
    status = 1;
  }
  for (auto& a : agents) a.terminate(std::chrono::seconds(5));
  cluster->stop();
  remove_temp_state();
  return status;
}
