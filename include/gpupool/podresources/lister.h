// The kubelet's pod-resources API (gRPC service v1.PodResourcesLister on a
// unix socket): which devices each running container holds.
//
//   auto lister = podresources::make_grpc_lister();   // the kubelet's default socket
//   auto held = lister->list();                        // throws PodResourcesUnavailable
//   auto users = podresources::attribute(inventory.gpus, held);   // attribution.h
//
// The agent needs /var/lib/kubelet/pod-resources mounted (hostPath) and runs
// as root, as the kubelet's socket is root-only.
#pragma once

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "gpupool/podresources/pod_devices.h"

namespace gpupool::podresources {

inline constexpr std::string_view kDefaultKubeletSocket = "/var/lib/kubelet/pod-resources/kubelet.sock";

// The socket is missing, the kubelet refused or did not answer within the
// deadline, or the answer could not be read. what() names the socket path and
// the gRPC status ("pod-resources List on /var/lib/kubelet/pod-resources/
// kubelet.sock failed: DEADLINE_EXCEEDED: Deadline Exceeded").
class PodResourcesUnavailable : public std::runtime_error {
 public:
  PodResourcesUnavailable(std::string socket_path, std::string status, const std::string& message)
      : std::runtime_error(message), socket_path_(std::move(socket_path)), status_(std::move(status)) {}
  const std::string& socket_path() const { return socket_path_; }
  // The gRPC status code's name ("UNAVAILABLE", "DEADLINE_EXCEEDED", ...);
  // "UNAVAILABLE" too when the socket file does not exist.
  const std::string& status() const { return status_; }

 private:
  std::string socket_path_;
  std::string status_;
};

class PodResourcesLister {
 public:
  virtual ~PodResourcesLister() = default;
  // Every container's devices, in the kubelet's order: device plugin
  // allocations and DRA devices (pod_devices.h); containers holding none are
  // left out. Throws PodResourcesUnavailable.
  virtual ContainerDevicesList list() = 0;
};

// The kubelet's List over unix://socket_path, each call bounded by `timeout`.
//
// Reconnection: every list() opens its own channel (with a subchannel pool of
// its own) and closes it afterwards. The kubelet replaces the socket file
// when it restarts; a long-lived gRPC channel would reconnect by itself, but
// after a failed connection it waits out an exponential backoff (1 s growing
// to 120 s) during which calls fail at once, and channels share subchannels
// (and their backoff) through gRPC's global pool. A fresh channel per call
// costs one local connect and HTTP/2 handshake (well under a millisecond) on
// a call the agent makes every few seconds at most, and the first list()
// after the kubelet is back always works. Safe to call from several threads.
std::unique_ptr<PodResourcesLister> make_grpc_lister(std::string socket_path = std::string(kDefaultKubeletSocket),
                                                     std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace gpupool::podresources
