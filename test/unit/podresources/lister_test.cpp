// make_grpc_lister against a real gRPC server of v1.PodResourcesLister on a
// unix socket (fake_kubelet.h): the answer flattened, a missing socket, a
// kubelet that restarts, one that never answers.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include <gtest/gtest.h>

#include "support/fake_kubelet.h"
#include "gpupool/podresources/attribution.h"
#include "gpupool/podresources/lister.h"

namespace gpupool::podresources {
namespace {

using namespace std::chrono_literals;
using testing::FakeKubelet;
using testing::make_response;
using testing::TempDir;

const std::string kGpu0 = "GPU-8f3c1a52-6d1e-4c7b-9a2f-0e1d2c3b4a50";
const std::string kGpu1 = "GPU-1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9";
const std::string kMig = "MIG-5d2f0a1b-3c4d-5e6f-7a8b-9c0d1e2f3a4b";

v1::ListPodResourcesResponse node_answer() {
  return make_response({
      {"team-a", "train-0", {{"trainer", {{"nvidia.com/gpu", {kGpu0}}, {"example.com/nic", {"eth1"}}}}, {"sidecar", {}}}},
      {"team-b", "infer-7", {{"server", {{"nvidia.com/mig-1g.10gb", {kMig}}}}}},
      {"team-c",
       "dra-0",
       {{"main", {}, {{"team-c", "gpu-claim", "gpu.nvidia.com", "node-1", "gpu-1", {"k8s.gpu.nvidia.com/device=gpu-1"}}}}}},
  });
}

// A unix socket file nobody listens on, as a killed kubelet leaves behind:
// connect() is refused.
void leave_stale_socket(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ::close(fd);  // bound, never listened on
  ASSERT_TRUE(std::filesystem::exists(path));
}

ContainerDevices held(const std::string& ns, const std::string& pod, const std::string& container,
                      const std::string& resource, std::vector<std::string> ids) {
  ContainerDevices c;
  c.namespace_ = ns;
  c.pod = pod;
  c.container = container;
  c.resource_name = resource;
  c.device_ids = std::move(ids);
  return c;
}

ContainerDevicesList expected_node_devices() {
  ContainerDevices dra = held("team-c", "dra-0", "main", "gpu.nvidia.com", {"gpu-1"});
  dra.source = DeviceSource::dra;
  dra.claim_namespace = "team-c";
  dra.claim_name = "gpu-claim";
  dra.pool_name = "node-1";
  dra.cdi_devices = {"k8s.gpu.nvidia.com/device=gpu-1"};
  return {
      held("team-a", "train-0", "trainer", "nvidia.com/gpu", {kGpu0}),
      held("team-a", "train-0", "trainer", "example.com/nic", {"eth1"}),
      held("team-b", "infer-7", "server", "nvidia.com/mig-1g.10gb", {kMig}),
      dra,
  };
}

TEST(GrpcLister, ListReturnsEveryContainersDevices) {
  TempDir dir;
  const auto socket = dir.file("kubelet.sock");
  FakeKubelet kubelet(socket, node_answer());
  auto lister = make_grpc_lister(socket, 5s);
  EXPECT_EQ(lister->list(), expected_node_devices());
  EXPECT_EQ(lister->list(), expected_node_devices());
  EXPECT_EQ(kubelet.calls(), 2);
}

TEST(GrpcLister, EmptyNode) {
  TempDir dir;
  const auto socket = dir.file("kubelet.sock");
  FakeKubelet kubelet(socket, make_response({{"kube-system", "coredns-1", {{"coredns", {}}}}}));
  EXPECT_TRUE(make_grpc_lister(socket, 5s)->list().empty());
}

TEST(GrpcLister, ListThenAttribute) {
  TempDir dir;
  const auto socket = dir.file("kubelet.sock");
  FakeKubelet kubelet(socket, node_answer());
  backend::GpuInfo gpu0;
  gpu0.index = 0;
  gpu0.uuid = kGpu0;
  backend::GpuInfo gpu1;
  gpu1.index = 1;
  gpu1.uuid = kGpu1;
  backend::MigInstance inst;
  inst.gpu_instance_id = 7;
  inst.uuid = kMig;
  gpu1.instances = {inst};
  const std::vector<backend::GpuInfo> gpus = {gpu0, gpu1};

  const auto users = attribute(gpus, make_grpc_lister(socket, 5s)->list());
  EXPECT_EQ(users.gpu_users(0), (std::vector<PodRef>{{"team-a", "train-0", "trainer"}}));
  EXPECT_TRUE(users.gpu_users(1).empty());  // the DRA device "gpu-1" names no GPU by itself
  EXPECT_EQ(users.mig_users(1, 7), (std::vector<PodRef>{{"team-b", "infer-7", "server"}}));
}

// Answers bigger than gRPC's default 4 MiB limit on what a client receives:
// the kubelet allows 16 MiB.
TEST(GrpcLister, LargeAnswer) {
  TempDir dir;
  const auto socket = dir.file("kubelet.sock");
  std::vector<testing::PodRow> pods;
  const std::string padding(200, 'x');
  for (int p = 0; p < 3000; ++p) {
    std::vector<std::string> ids;
    for (int i = 0; i < 10; ++i) ids.push_back("dev-" + std::to_string(p) + "-" + std::to_string(i) + "-" + padding);
    pods.push_back({"ns", "pod-" + std::to_string(p), {{"c", {{"example.com/thing", ids}}}}});
  }
  const auto answer = make_response(pods);
  ASSERT_GT(answer.ByteSizeLong(), 5u * 1024 * 1024);
  FakeKubelet kubelet(socket, answer);
  const auto listed = make_grpc_lister(socket, 20s)->list();
  ASSERT_EQ(listed.size(), 3000u);
  EXPECT_EQ(listed.back().pod, "pod-2999");
  EXPECT_EQ(listed.back().device_ids.size(), 10u);
}

TEST(GrpcLister, MissingSocketNamesThePath) {
  TempDir dir;
  const auto socket = dir.file("kubelet.sock");
  auto lister = make_grpc_lister(socket, 5s);
  try {
    lister->list();
    FAIL() << "no error";
  } catch (const PodResourcesUnavailable& e) {
    EXPECT_EQ(e.socket_path(), socket);
    EXPECT_EQ(e.status(), "UNAVAILABLE");
    EXPECT_NE(std::string(e.what()).find(socket), std::string::npos) << e.what();
  }
}

TEST(GrpcLister, DefaultSocketPath) {
  EXPECT_EQ(kDefaultKubeletSocket, "/var/lib/kubelet/pod-resources/kubelet.sock");
}

// A socket file nobody listens on any more (a kubelet that died without
// removing it): refused at once, the error names the path and the status.
TEST(GrpcLister, StaleSocketFile) {
  TempDir dir;
  const auto socket = dir.file("kubelet.sock");
  leave_stale_socket(socket);
  try {
    make_grpc_lister(socket, 5s)->list();
    FAIL() << "no error";
  } catch (const PodResourcesUnavailable& e) {
    EXPECT_EQ(e.status(), "UNAVAILABLE") << e.what();
    EXPECT_NE(std::string(e.what()).find(socket), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("UNAVAILABLE"), std::string::npos) << e.what();
  }
}

// The kubelet restarts: the socket file is replaced. The first list() after
// it is back works, whether or not calls failed while it was away (a channel
// kept across calls fails this: after a refused connection it waits out its
// reconnect backoff).
TEST(GrpcLister, KubeletRestartOnTheSamePath) {
  TempDir dir;
  const auto socket = dir.file("kubelet.sock");
  auto lister = make_grpc_lister(socket, 5s);

  auto first = std::make_unique<FakeKubelet>(socket, make_response({{"a", "p", {{"c", {{"nvidia.com/gpu", {kGpu0}}}}}}}));
  EXPECT_EQ(lister->list().at(0).pod, "p");
  first.reset();
  // gRPC's server removes its socket file on shutdown; a kubelet that is
  // killed leaves it behind, and connecting to it is refused.
  leave_stale_socket(socket);
  EXPECT_THROW(lister->list(), PodResourcesUnavailable);
  EXPECT_THROW(lister->list(), PodResourcesUnavailable);

  auto second = std::make_unique<FakeKubelet>(socket, make_response({{"a", "q", {{"c", {{"nvidia.com/gpu", {kGpu1}}}}}}}));
  auto listed = lister->list();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].pod, "q");
  EXPECT_EQ(listed[0].device_ids, std::vector<std::string>{kGpu1});

  // Again with no call while it was away.
  second.reset();
  FakeKubelet third(socket, make_response({{"a", "r", {{"c", {{"nvidia.com/gpu", {kGpu0}}}}}}}));
  listed = lister->list();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].pod, "r");
}

// A kubelet that accepts the call and never answers: the deadline ends it.
TEST(GrpcLister, NoAnswerEndsAtTheDeadline) {
  TempDir dir;
  const auto socket = dir.file("kubelet.sock");
  FakeKubelet kubelet(socket, node_answer());
  kubelet.hang();
  auto lister = make_grpc_lister(socket, 300ms);
  const auto start = std::chrono::steady_clock::now();
  try {
    lister->list();
    FAIL() << "no error";
  } catch (const PodResourcesUnavailable& e) {
    EXPECT_EQ(e.status(), "DEADLINE_EXCEEDED") << e.what();
    EXPECT_NE(std::string(e.what()).find(socket), std::string::npos) << e.what();
  }
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 10s);
  EXPECT_EQ(kubelet.calls(), 1);
}

// A socket that accepts connections and never speaks (a wedged kubelet): no
// HTTP/2 handshake ever completes, and the deadline still ends the call.
TEST(GrpcLister, SilentSocketEndsAtTheDeadline) {
  TempDir dir;
  const auto socket = dir.file("kubelet.sock");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket.c_str(), sizeof(addr.sun_path) - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 16), 0);  // connections queue in the backlog, never accepted

  const auto start = std::chrono::steady_clock::now();
  try {
    make_grpc_lister(socket, 300ms)->list();
    FAIL() << "no error";
  } catch (const PodResourcesUnavailable& e) {
    EXPECT_EQ(e.status(), "DEADLINE_EXCEEDED") << e.what();
  }
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 250ms);
  EXPECT_LT(took, 10s);
  ::close(fd);
}

TEST(GrpcLister, ConcurrentCalls) {
  TempDir dir;
  const auto socket = dir.file("kubelet.sock");
  FakeKubelet kubelet(socket, node_answer());
  auto lister = make_grpc_lister(socket, 5s);
  std::atomic<int> good = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) {
        if (lister->list() == expected_node_devices()) ++good;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), 40);
}

}  // namespace
}  // namespace gpupool::podresources
