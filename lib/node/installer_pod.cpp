#include "gpupool/node/installer_pod.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "gpupool/common/short_hash.h"
#include "gpupool/kube/json_access.h"

namespace gpupool::node {
namespace {

using rapidjson::Value;


// Label values are at most 63 characters.
std::string label_value(const std::string& node) {
  if (node.size() <= 63) return node;
  return node.substr(0, 52) + "-" + common::short_hash(node);
}

using kube::member;

std::string string_member(const Value* v, const char* name) {
  const Value* m = v ? member(*v, name) : nullptr;
  return m && m->IsString() ? std::string(m->GetString(), m->GetStringLength()) : "";
}

}  // namespace

std::string installer_pod_name(const std::string& node_name) {
  const std::string name = std::string(kInstallerComponent) + "-" + node_name;
  if (name.size() <= 253) return name;
  return name.substr(0, 242) + "-" + common::short_hash(node_name);
}

std::string installer_pod_manifest(const InstallerPodInput& in) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  auto str = [&](const std::string& s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); };
  auto kv = [&](const char* k, const std::string& v) {
    w.Key(k);
    str(v);
  };
  w.StartObject();
  kv("apiVersion", "v1");
  kv("kind", "Pod");
  w.Key("metadata");
  w.StartObject();
  kv("name", installer_pod_name(in.node_name));
  kv("namespace", in.namespace_);
  w.Key("labels");
  w.StartObject();
  kv("app.kubernetes.io/name", "gpupool");
  kv(kInstallerComponentLabel, kInstallerComponent);
  kv("app.kubernetes.io/managed-by", "gpupool-agent");
  kv(kInstallerNodeLabel, label_value(in.node_name));
  w.EndObject();
  w.Key("annotations");
  w.StartObject();
  kv(kInstallerVersionAnnotation, in.driver.version);
  w.EndObject();
  if (!in.node_uid.empty()) {
    w.Key("ownerReferences");
    w.StartArray();
    w.StartObject();
    kv("apiVersion", "v1");
    kv("kind", "Node");
    kv("name", in.node_name);
    kv("uid", in.node_uid);
    w.EndObject();
    w.EndArray();
  }
  w.EndObject();
  w.Key("spec");
  w.StartObject();
  kv("nodeName", in.node_name);  // bypasses the scheduler: the node is cordoned during the install
  kv("restartPolicy", "Never");
  w.Key("automountServiceAccountToken");
  w.Bool(false);
  w.Key("hostPID");
  w.Bool(true);
  w.Key("tolerations");
  w.StartArray();
  w.StartObject();
  kv("operator", "Exists");
  w.EndObject();
  w.EndArray();
  w.Key("containers");
  w.StartArray();
  w.StartObject();
  kv("name", "installer");
  kv("image", in.driver.installer.image);
  kv("imagePullPolicy", "IfNotPresent");
  kv("terminationMessagePolicy", "FallbackToLogsOnError");
  w.Key("env");
  w.StartArray();
  auto env = [&](const std::string& k, const std::string& v) {
    w.StartObject();
    kv("name", k);
    kv("value", v);
    w.EndObject();
  };
  env("DRIVER_VERSION", in.driver.version);
  for (const auto& [k, v] : in.parameters.env) env(k, v);
  w.EndArray();
  w.Key("securityContext");
  w.StartObject();
  w.Key("privileged");
  w.Bool(true);  // loads kernel modules
  w.EndObject();
  w.Key("volumeMounts");
  w.StartArray();
  w.StartObject();
  kv("name", "host");
  kv("mountPath", "/host");
  w.EndObject();
  w.EndArray();
  w.EndObject();
  w.EndArray();
  w.Key("volumes");
  w.StartArray();
  w.StartObject();
  kv("name", "host");
  w.Key("hostPath");
  w.StartObject();
  kv("path", "/");
  w.EndObject();
  w.EndObject();
  w.EndArray();
  w.EndObject();
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

InstallerPodState read_installer_pod(const rapidjson::Value& pod) {
  InstallerPodState out;
  const Value* meta = member(pod, "metadata");
  const Value* annotations = meta ? member(*meta, "annotations") : nullptr;
  out.version = string_member(annotations, kInstallerVersionAnnotation);
  const Value* spec = member(pod, "spec");
  const Value* containers = spec ? member(*spec, "containers") : nullptr;
  if (containers && containers->IsArray() && !containers->Empty()) out.image = string_member(&(*containers)[0], "image");

  const Value* status = member(pod, "status");
  const std::string phase = string_member(status, "phase");
  const Value* statuses = status ? member(*status, "containerStatuses") : nullptr;
  const Value* cs = statuses && statuses->IsArray() && !statuses->Empty() ? &(*statuses)[0] : nullptr;
  const Value* state = cs ? member(*cs, "state") : nullptr;
  const Value* waiting = state ? member(*state, "waiting") : nullptr;
  const Value* terminated = state ? member(*state, "terminated") : nullptr;

  if (phase == "Succeeded") {
    out.phase = InstallerPodPhase::succeeded;
    return out;
  }
  if (phase == "Failed") {
    out.phase = InstallerPodPhase::failed;
    std::string d;
    if (terminated) {
      const Value* code = member(*terminated, "exitCode");
      if (code && code->IsInt()) d = "exit code " + std::to_string(code->GetInt());
      const std::string reason = string_member(terminated, "reason");
      if (!reason.empty()) d += (d.empty() ? "" : ", ") + reason;
      const std::string message = string_member(terminated, "message");
      if (!message.empty()) d += (d.empty() ? "" : ": ") + message;
    }
    if (d.empty()) {
      const std::string reason = string_member(status, "reason");
      const std::string message = string_member(status, "message");
      d = reason.empty() && message.empty() ? "the pod failed" : reason + (message.empty() ? "" : ": " + message);
    }
    out.detail = d;
    return out;
  }
  if (waiting) {
    const std::string reason = string_member(waiting, "reason");
    const std::string message = string_member(waiting, "message");
    if (reason != "ContainerCreating" && reason != "PodInitializing" && !reason.empty()) {
      out.detail = reason + (message.empty() ? "" : ": " + message);
    }
  }
  return out;
}

}  // namespace gpupool::node
