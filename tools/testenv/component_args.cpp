#include "component_args.h"

namespace gpupool::testenv::detail {

const char* const kAdmissionPlugins =
    "NamespaceLifecycle,LimitRanger,ServiceAccount,NodeRestriction,TaintNodesByCondition,PodSecurity,"
    "Priority,DefaultTolerationSeconds,DefaultStorageClass,StorageObjectInUseProtection,"
    "PersistentVolumeClaimResize,RuntimeClass,CertificateApproval,CertificateSigning,"
    "ClusterTrustBundleAttest,CertificateSubjectRestriction,DefaultIngressClass,MutatingAdmissionPolicy,"
    "MutatingAdmissionWebhook,ValidatingAdmissionPolicy,ValidatingAdmissionWebhook,ResourceQuota";
const char* const kServiceClusterIpRange = "10.96.0.0/12";
const char* const kKwokManageAnnotation = "kwok.x-k8s.io/node";
const char* const kKwokManageValue = "fake";

namespace {

std::string local(int port) { return "127.0.0.1:" + std::to_string(port); }

// kcm and the scheduler authenticate and authorize callers of their own
// endpoints through the apiserver, with their own kubeconfig (as kubeadm does).
std::vector<std::string> delegated_server_args(const Layout& l, const std::string& component, int port) {
  std::string kc = l.kubeconfig(component);
  return {
      "--kubeconfig=" + kc,
      "--authentication-kubeconfig=" + kc,
      "--authorization-kubeconfig=" + kc,
      "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
      "--bind-address=127.0.0.1",
      "--secure-port=" + std::to_string(port),
      "--cert-dir=" + l.path("run/" + component),
      // One instance per cluster: no lease to wait for after a restart.
      "--leader-elect=false",
  };
}

}  // namespace

std::vector<std::string> etcd_args(const Layout& l) {
  std::string client = "http://" + local(l.ports.etcd_client);
  std::string peer = "http://" + local(l.ports.etcd_peer);
  return {
      "--name=testenv",
      "--data-dir=" + l.path("etcd"),
      "--listen-client-urls=" + client,
      "--advertise-client-urls=" + client,
      "--listen-peer-urls=" + peer,
      "--initial-advertise-peer-urls=" + peer,
      "--initial-cluster=testenv=" + peer,
      "--initial-cluster-state=new",
      // A throwaway test store: durability is not worth the fsync latency.
      "--unsafe-no-fsync=true",
      "--quota-backend-bytes=4294967296",
      "--enable-grpc-gateway=true",  // compact_etcd() uses the JSON gateway
  };
}

std::vector<std::string> apiserver_args(const Layout& l, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {
      "--etcd-servers=http://" + local(l.ports.etcd_client),
      "--bind-address=127.0.0.1",
      "--advertise-address=127.0.0.1",
      // The endpoint reconcilers refuse a loopback address for the "kubernetes"
      // Service's endpoints; nothing here runs in-cluster clients, so skip them.
      "--endpoint-reconciler-type=none",
      "--secure-port=" + std::to_string(l.ports.apiserver),
      "--cert-dir=" + l.path("run/kube-apiserver"),
      "--tls-cert-file=" + l.pki.serving_crt,
      "--tls-private-key-file=" + l.pki.serving_key,
      "--client-ca-file=" + l.pki.ca_crt,
      "--token-auth-file=" + l.token_file(),
      "--authorization-mode=Node,RBAC",
      std::string("--enable-admission-plugins=") + kAdmissionPlugins,
      std::string("--service-cluster-ip-range=") + kServiceClusterIpRange,
      "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
      "--service-account-key-file=" + l.pki.sa_pub,
      "--service-account-signing-key-file=" + l.pki.sa_key,
      "--allow-privileged=true",
      "--profiling=false",
  };
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::vector<std::string> controller_manager_args(const Layout& l, int node_lease_seconds) {
  auto args = delegated_server_args(l, "kube-controller-manager", l.ports.controller_manager);
  std::vector<std::string> more = {
      // Each controller runs as its own service account (kubeadm's setup): the
      // built-in system:kube-controller-manager role only covers bootstrapping those.
      "--use-service-account-credentials=true",
      "--controllers=*,bootstrapsigner,tokencleaner",
      "--root-ca-file=" + l.pki.ca_crt,
      "--service-account-private-key-file=" + l.pki.sa_key,
      "--cluster-signing-cert-file=" + l.pki.ca_crt,
      "--cluster-signing-key-file=" + l.pki.ca_key,
      std::string("--service-cluster-ip-range=") + kServiceClusterIpRange,
      // kwokctl's defaults at 40 s: kwok renews node leases every quarter of
      // their duration, well within the grace period.
      "--node-monitor-period=5s",
      "--node-monitor-grace-period=" + std::to_string(node_lease_seconds) + "s",
      "--kube-api-qps=100",
      "--kube-api-burst=200",
  };
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::vector<std::string> scheduler_args(const Layout& l) {
  auto args = delegated_server_args(l, "kube-scheduler", l.ports.scheduler);
  args.push_back("--kube-api-qps=100");
  args.push_back("--kube-api-burst=200");
  return args;
}

std::vector<std::string> kwok_args(const Layout& l, int node_lease_seconds) {
  return {
      "--kubeconfig=" + l.kubeconfig("kwok"),
      "--config=" + l.kwok_config(),
      "--manage-all-nodes=false",
      std::string("--manage-nodes-with-annotation-selector=") + kKwokManageAnnotation + "=" + kKwokManageValue,
      "--node-ip=10.0.0.1",
      "--node-port=" + std::to_string(l.ports.kwok),
      "--server-address=" + local(l.ports.kwok),
      "--node-lease-duration-seconds=" + std::to_string(node_lease_seconds),
      // Warnings and errors only: at INFO kwok logs every node and pod
      // patch (108,000 lines in 19 minutes of the scale bench at 5,000
      // nodes, CPU the 2-core machine lacked).
      "--v=WARN",
  };
}

}  // namespace gpupool::testenv::detail
