// A real Kubernetes control plane on loopback, for integration tests and the
// local cluster: etcd, kube-apiserver, kube-controller-manager, kube-scheduler
// and kwok (which simulates nodes and the pods bound to them), each a child
// process of the caller, built by tools/controlplane/build.sh.
//
// Binaries: $GPUPOOL_CONTROLPLANE_BIN if set, else the directory printed by
// `tools/controlplane/build.sh --bin-dir` (the first call builds them; later
// calls return at once from the cache).
//
// Process hygiene: every component is forked from one long-lived thread with
// PR_SET_PDEATHSIG=SIGKILL, so if the owning process dies (SIGKILL, ctest
// timeout, crash) the components die with it. stop() leaves no process behind.
//
// Authentication is by static bearer tokens (--token-auth-file); authorization
// is Node,RBAC. Tokens are never logged. The apiserver advertises 127.0.0.1,
// so the "kubernetes" Service gets no endpoints (nothing runs in-cluster).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gpupool::testenv {

// Users provisioned on every control plane (see token_for()).
inline constexpr const char* kAdminUser = "admin";          // group system:masters
inline constexpr const char* kKwokUser = "kwok-controller";  // group system:masters
inline constexpr const char* kAlice = "alice";              // no roles at all
inline constexpr const char* kBob = "bob";                  // no roles at all
// Node identities system:node:<prefix><i> (group system:nodes) exist for
// i in [0, kProvisionedNodes).
inline constexpr const char* kNodeNamePrefix = "kwok-node-";
inline constexpr int kProvisionedNodes = 16;

// An extra token identity to provision. The user name and groups must not
// contain commas, quotes or line breaks.
struct Identity {
  std::string user;
  std::vector<std::string> groups;
};

struct Options {
  // Empty: a fresh directory under $TMPDIR (or /tmp), removed by stop() unless
  // $GPUPOOL_TESTENV_KEEP_STATE=1. Set: created if missing and kept; starting
  // again with the same directory resumes the cluster (etcd data,
  // certificates, tokens and, when still free, ports are reused).
  std::string state_dir;
  bool controller_manager = true;
  bool scheduler = true;
  bool kwok = true;
  std::vector<Identity> extra_identities;
  // How long kwok's node leases last (renewed every quarter of it) and
  // kube-controller-manager's grace before it marks a node NotReady: 40 s as
  // kubelet's defaults. Longer only where kwok cannot keep up (thousands of
  // nodes renew leases at duration/4: 500 writes/s at 5,000 nodes and 40 s).
  int node_lease_seconds = 40;
  // How many node leases kwok renews at once (kwok's nodeLeaseParallelism).
  // Each renewal waits on its PUT: on a busy API server (0.4 s each at 5,000
  // nodes on 2 cores) 4 at once renewed 10 a second where 100 were due, and
  // kube-controller-manager marked the nodes whose lease lapsed NotReady.
  int node_lease_parallelism = 4;
  // Appended after the defaults; for a single-valued flag the last one wins
  // (e.g. "--watch-cache=false" so compact_etcd() makes old resourceVersions 410).
  std::vector<std::string> extra_apiserver_flags;
  // Another kube-apiserver binary (an older release, for compatibility tests);
  // empty: the one in the bin dir. Pair it with controller_manager, scheduler
  // and kwok off unless their version skew is known to work.
  std::string apiserver_binary;
  // Deadline for a whole start (all components ready), and for the apiserver
  // to be ready again after restart_apiserver(). Does not cover a first build
  // of the binaries (see find_bin_dir()).
  std::chrono::seconds ready_timeout{180};
};

// What a finished command produced.
struct CommandResult {
  int status = -1;  // exit code; 128+N when killed by signal N
  std::string out;  // stdout
  std::string err;  // stderr
};

// Const members may be called from several threads at once; stop(),
// restart_apiserver() and compact_etcd() not while others run.
class ControlPlane {
 public:
  // Starts every enabled component and waits until it is ready: apiserver
  // /readyz, kcm/scheduler /healthz, kwok /healthz, and the "default"
  // ServiceAccount in namespace "default" (proof that kcm's controllers run).
  // Retries with other ports when a port was taken in the meantime.
  // Throws std::runtime_error naming the component that failed, with the last
  // lines of its log; nothing is left running then.
  static std::unique_ptr<ControlPlane> start(Options opts = {});

  ~ControlPlane();  // stop()
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  // SIGTERM to every component (in reverse start order), waits for each with
  // a deadline, SIGKILL for stragglers, reaps them all. Removes a temporary
  // state dir. Idempotent.
  void stop();
  bool running() const;

  std::string server() const;           // https://127.0.0.1:PORT
  std::string kubeconfig_path() const;  // admin kubeconfig (CA data + bearer token)
  std::string ca_file() const;          // CA that signed the serving certificate
  std::string ca_pem() const;
  std::string admin_token() const;
  // Token of any provisioned identity (admin, kwok-controller, alice, bob,
  // system:kube-controller-manager, system:kube-scheduler, node identities,
  // Options::extra_identities). Throws std::out_of_range for an unknown user.
  std::string token_for(const std::string& user) const;
  // Token of "system:node:<node>" (group system:nodes). Throws
  // std::out_of_range unless the node identity was provisioned.
  std::string node_token(const std::string& node) const;
  // Writes a kubeconfig for a provisioned user (like token_for) into the state
  // dir and returns its path, for running kubectl or a client as that user.
  std::string kubeconfig_for(const std::string& user) const;
  // The same pointing at `server` (e.g. a fault proxy in front of this
  // apiserver, serving a certificate from issue_serving_cert()), trusting
  // this cluster's CA. One file per user and server.
  std::string kubeconfig_for(const std::string& user, const std::string& server) const;

  std::string bin_dir() const;
  std::string kubectl_path() const;
  std::string state_dir() const;
  std::string log_dir() const;     // <component>.log for each component
  int etcd_client_port() const;    // plain http on 127.0.0.1

  // Runs kubectl with the admin kubeconfig (args after `kubectl`). `output`
  // gets stdout; when the exit status is non-zero stderr is appended to it so
  // assertion messages say why. Killed after 5 minutes. Returns the exit status.
  int kubectl(const std::vector<std::string>& args, std::string* output = nullptr,
              const std::string& stdin_data = "") const;
  // Same, with stdout and stderr apart.
  CommandResult kubectl_result(const std::vector<std::string>& args, const std::string& stdin_data = "") const;

  // Stops kube-apiserver and starts it again on the same port, then waits for
  // /readyz (for watch-resume tests). Throws like start().
  void restart_apiserver();
  // Stops kube-apiserver, then etcd, and starts both again on the same ports
  // and the same data dir (nothing is lost: etcd syncs every write), then
  // waits for etcd /health and the apiserver's /readyz. The other components
  // keep running and reconnect. Throws like start().
  void restart_etcd_and_apiserver();

  // Compacts etcd at its current revision (physically) so that older
  // resourceVersions are gone from storage; returns that revision. Note that
  // the apiserver's watch cache can still serve recent history; start with
  // "--watch-cache=false" to make every older resourceVersion answer 410 Gone.
  std::int64_t compact_etcd();

  // Pids of the running components, in start order (for leak checks).
  std::vector<pid_t> pids() const;

 private:
  class Impl;
  explicit ControlPlane(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The directory holding the control-plane binaries (see the file comment).
// Throws std::runtime_error when it cannot be found or built.
std::string find_bin_dir();

}  // namespace gpupool::testenv
