// The kubelet's pod-resources endpoint for tests: a real gRPC server of
// v1.PodResourcesLister on a unix socket, answering List from a table, or
// never answering. Header-only so that only the tests that include it need
// gRPC (with gpupool_podresources_proto): the unit tests and the agent's
// metrics integration test.
#pragma once

#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "podresources/v1/api.grpc.pb.h"

namespace gpupool::podresources::testing {

// One table row per pod.
struct Allocation {
  std::string resource;
  std::vector<std::string> ids;
};
struct DraDevice {
  std::string claim_namespace, claim_name, driver, pool, device;
  std::vector<std::string> cdi;
};
struct ContainerRow {
  std::string name;
  std::vector<Allocation> devices;
  std::vector<DraDevice> dra = {};
};
struct PodRow {
  std::string namespace_, name;
  std::vector<ContainerRow> containers;
};

inline v1::ListPodResourcesResponse make_response(const std::vector<PodRow>& pods) {
  v1::ListPodResourcesResponse response;
  for (const auto& p : pods) {
    auto* pod = response.add_pod_resources();
    pod->set_namespace_(p.namespace_);
    pod->set_name(p.name);
    for (const auto& c : p.containers) {
      auto* container = pod->add_containers();
      container->set_name(c.name);
      container->add_cpu_ids(3);  // exclusive CPUs: present in real answers, ignored
      for (const auto& a : c.devices) {
        auto* devices = container->add_devices();
        devices->set_resource_name(a.resource);
        for (const auto& id : a.ids) devices->add_device_ids(id);
        devices->mutable_topology()->add_nodes()->set_id(0);
      }
      for (const auto& d : c.dra) {
        auto* dynamic = container->add_dynamic_resources();
        dynamic->set_claim_namespace(d.claim_namespace);
        dynamic->set_claim_name(d.claim_name);
        auto* claimed = dynamic->add_claim_resources();
        claimed->set_driver_name(d.driver);
        claimed->set_pool_name(d.pool);
        claimed->set_device_name(d.device);
        for (const auto& name : d.cdi) claimed->add_cdi_devices()->set_name(name);
      }
    }
  }
  return response;
}

// A directory of its own under /tmp (unix socket paths are limited to 108 bytes).
class TempDir {
 public:
  TempDir() {
    std::string pattern = "/tmp/gpupool-podres.XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

class FakeKubelet {
 public:
  // Serves `answer` on unix://socket_path until stopped or destroyed.
  FakeKubelet(const std::string& socket_path, v1::ListPodResourcesResponse answer) : service_(std::move(answer)) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix://" + socket_path, grpc::InsecureServerCredentials());
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    if (!server_) throw std::runtime_error("fake kubelet: cannot serve on " + socket_path);
  }
  ~FakeKubelet() { stop(); }
  FakeKubelet(const FakeKubelet&) = delete;
  FakeKubelet& operator=(const FakeKubelet&) = delete;

  // From now on List never answers: it returns only when the client gives up
  // (the call is cancelled) or the server stops.
  void hang() { service_.hanging = true; }
  int calls() const { return service_.calls.load(); }

  void stop() {
    if (!server_) return;
    {
      std::lock_guard lock(service_.mutex);
      service_.stopping = true;
    }
    service_.wake.notify_all();
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
    server_->Wait();
    server_.reset();
  }

 private:
  struct Service final : v1::PodResourcesLister::Service {
    explicit Service(v1::ListPodResourcesResponse a) : answer(std::move(a)) {}
    grpc::Status List(grpc::ServerContext* context, const v1::ListPodResourcesRequest*,
                      v1::ListPodResourcesResponse* response) override {
      ++calls;
      if (hanging) {
        // IsCancelled has no notification to wait on in the sync API: look again every few ms.
        std::unique_lock lock(mutex);
        while (!stopping && !context->IsCancelled()) wake.wait_for(lock, std::chrono::milliseconds(5));
        return grpc::Status(grpc::StatusCode::CANCELLED, "gave up");
      }
      *response = answer;
      return grpc::Status::OK;
    }
    const v1::ListPodResourcesResponse answer;
    std::atomic<bool> hanging = false;
    std::atomic<int> calls = 0;
    std::mutex mutex;
    std::condition_variable wake;
    bool stopping = false;
  };

  Service service_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace gpupool::podresources::testing
