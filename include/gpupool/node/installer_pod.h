// The driver-installer pod of the `container` installer kind, as pure
// functions: the manifest the agent creates and how it reads the pod back.
//
// The pod (one per node, named by installer_pod_name) runs the installer
// image once (restartPolicy Never) pinned to the node by spec.nodeName, so
// it runs on the cordoned node without the scheduler, tolerating every taint.
// It is privileged with the host's PID namespace and the host's root at
// /host, as NVIDIA's driver container expects, gets DRIVER_VERSION and the
// installer parameters as environment variables, no service account token,
// and the annotation gpupool.io/driver-version so a restarted agent knows
// which install a pod it finds belongs to.
#pragma once

#include <optional>
#include <string>

#include <rapidjson/document.h>

#include "gpupool/api/common_types.h"
#include "gpupool/api/installer_parameters.h"

namespace gpupool::node {

inline constexpr const char* kInstallerVersionAnnotation = "gpupool.io/driver-version";
inline constexpr const char* kInstallerComponentLabel = "app.kubernetes.io/component";
inline constexpr const char* kInstallerComponent = "gpupool-driver-installer";
inline constexpr const char* kInstallerNodeLabel = "gpupool.io/node";

// "gpupool-driver-installer-<node>", shortened with a hash of the node name
// when that would not be a valid pod name (over 253 characters).
std::string installer_pod_name(const std::string& node_name);

struct InstallerPodInput {
  std::string node_name;
  std::string node_uid;    // non-empty: the pod is owned by the Node (garbage-collected with it)
  std::string namespace_;  // the agent's namespace
  api::DriverSpec driver;  // version and installer (image)
  api::InstallerParameters parameters;
};

// The Pod as JSON, ready to POST.
std::string installer_pod_manifest(const InstallerPodInput& in);

enum class InstallerPodPhase { running, succeeded, failed };

struct InstallerPodState {
  InstallerPodPhase phase = InstallerPodPhase::running;
  std::string version;  // from the annotation
  std::string image;    // of the installer container
  // running: why it is not started yet ("ImagePullBackOff: ..."), empty when
  // nothing is wrong; failed: exit code, reason and the termination message.
  std::string detail;
};

// Reads a Pod object as the API server returns it.
InstallerPodState read_installer_pod(const rapidjson::Value& pod);

}  // namespace gpupool::node
