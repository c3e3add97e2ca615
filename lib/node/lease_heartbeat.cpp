#include "gpupool/node/lease_heartbeat.h"

#include <spdlog/spdlog.h>

#include "gpupool/common/stoppable_sleep.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/micro_time.h"

namespace gpupool::node {
namespace {

kube::ResourceRef lease_ref(const LeaseHeartbeatOptions& o) {
  return kube::ResourceRef{{"coordination.k8s.io", "v1", "leases"}, o.namespace_, agent_lease_name(o.node_name), ""};
}

}  // namespace

std::string agent_lease_name(const std::string& node_name) { return "gpupool-agent-" + node_name; }

LeaseHeartbeat::LeaseHeartbeat(kube::Client& client, LeaseHeartbeatOptions options)
    : client_(client), options_(std::move(options)) {}

void LeaseHeartbeat::renew_once() {
  const std::string now = kube::format_micro_time(std::chrono::system_clock::now());
  const std::string spec = R"({"holderIdentity":")" + options_.node_name + R"(","leaseDurationSeconds":)" +
                           std::to_string(options_.lease_duration_seconds) + R"(,"renewTime":")" + now + R"("})";
  const auto ref = lease_ref(options_);
  try {
    client_.patch(ref, kube::PatchType::MergePatch, R"({"spec":)" + spec + "}");
  } catch (const kube::ApiError& e) {
    if (!e.is_not_found()) throw;
    const std::string body = R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":")" + ref.name +
                             R"(","namespace":")" + ref.ns + R"(","labels":{"app.kubernetes.io/name":"gpupool-agent"}},"spec":)" +
                             spec + "}";
    try {
      client_.create(ref.with_name(""), body);
    } catch (const kube::ApiError& c) {
      if (!c.is_already_exists()) throw;
      client_.patch(ref, kube::PatchType::MergePatch, R"({"spec":)" + spec + "}");
    }
  }
  ++renewals_;
}

void LeaseHeartbeat::run(std::stop_token stop) {
  while (!stop.stop_requested()) {
    try {
      renew_once();
    } catch (const std::exception& e) {
      spdlog::warn("lease {}/{}: renewal failed: {}", options_.namespace_, agent_lease_name(options_.node_name), e.what());
    }
    common::sleep_for(options_.interval, stop);
  }
}

}  // namespace gpupool::node
