// A generator of realistic pods for benchmarks: Deployment pods as the
// kube-apiserver serializes them (managedFields, probes, env, a projected
// token volume, status...), about 6 KB each, deterministic for a seed.
#pragma once

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>

namespace gpupool::bench {

class PodWriter {
 public:
  explicit PodWriter(uint64_t seed) : rng_(seed) {}

  // One pod as kube-apiserver serializes it (compact, in its field order).
  std::string pod(std::size_t index) {
    const std::string app = "trainer-" + num(index / 50, 4);
    const std::string hash = alnum(10);
    const std::string rs = app + "-" + hash;
    const std::string name = rs + "-" + alnum(5);
    const std::string ns = "team-" + num(index % 40, 2);
    const std::string node = "gpu-node-" + num(pick(0, 499), 3);
    const std::string ip = "10.244." + std::to_string(pick(0, 255)) + "." + std::to_string(pick(2, 254));
    const std::string created = timestamp();
    const std::string started = timestamp();
    const std::string pool = "a100-pool-" + std::to_string(pick(1, 6));
    // Most pods have one container, some a sidecar or two.
    const int roll = pick(0, 9);
    const int containers = roll < 6 ? 1 : roll < 9 ? 2 : 3;
    const bool gpu = pick(0, 3) != 0;

    std::string s;
    s.reserve(8192);
    s += R"({"metadata":{"name":")" + name + R"(","generateName":")" + rs + R"(-","namespace":")" + ns +
         R"(","uid":")" + uid() + R"(","resourceVersion":")" + std::to_string(1000000 + index * 3) +
         R"(","creationTimestamp":")" + created + R"(","labels":{"app.kubernetes.io/name":")" + app +
         R"(","app.kubernetes.io/instance":")" + app + R"(","app.kubernetes.io/component":"worker",)" +
         R"("gpupool.example.com/pool":")" + pool + R"(","pod-template-hash":")" + hash + R"("},)" +
         R"("annotations":{"prometheus.io/port":"9400","prometheus.io/scrape":"true"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":")" + rs +
         R"(","uid":")" + uid() + R"(","controller":true,"blockOwnerDeletion":true}],"managedFields":[)";
    s += R"({"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":")" + created +
         R"(","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},)"
         R"("f:prometheus.io/port":{},"f:prometheus.io/scrape":{}},"f:generateName":{},"f:labels":{".":{},)"
         R"("f:app.kubernetes.io/component":{},"f:app.kubernetes.io/instance":{},"f:app.kubernetes.io/name":{},)"
         R"("f:gpupool.example.com/pool":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},)"
         R"("k:{\"uid\":\")" + uid() + R"(\"}":{}}},"f:spec":{"f:containers":{)";
    for (int c = 0; c < containers; ++c) {
      if (c) s += ',';
      s += R"("k:{\"name\":\")" + container_name(c) + R"(\"}":{".":{},)";
      if (c == 0) {
        s += R"("f:env":{".":{},"k:{\"name\":\"NCCL_DEBUG\"}":{".":{},"f:name":{},"f:value":{}},)"
             R"("k:{\"name\":\"POD_NAME\"}":{".":{},"f:name":{},"f:valueFrom":{".":{},"f:fieldRef":{}}}},)"
             R"("f:livenessProbe":{".":{},"f:failureThreshold":{},"f:httpGet":{".":{},"f:path":{},"f:port":{},)"
             R"("f:scheme":{}},"f:periodSeconds":{}},"f:ports":{".":{},"k:{\"containerPort\":9400,\"protocol\":\"TCP\"}":)"
             R"({".":{},"f:containerPort":{},"f:name":{},"f:protocol":{}}},)";
      }
      s += R"("f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{".":{},"f:limits":{},"f:requests":{}},)"
           R"("f:terminationMessagePath":{},"f:terminationMessagePolicy":{},"f:volumeMounts":{}})";
    }
    s += R"(},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},)"
         R"("f:securityContext":{},"f:terminationGracePeriodSeconds":{},"f:tolerations":{},"f:volumes":{}}}},)";
    s += R"({"manager":"kubelet","operation":"Update","apiVersion":"v1","time":")" + started +
         R"(","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{)"
         R"("k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},)"
         R"("k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},)"
         R"("k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},)"
         R"("f:containerStatuses":{},"f:hostIP":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},)"
         R"("k:{\"ip\":\")" + ip + R"(\"}":{".":{},"f:ip":{}}},"f:startTime":{}}},"subresource":"status"}]},)";

    s += R"("spec":{"volumes":[{"name":"kube-api-access-)" + alnum(5) +
         R"(","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},)"
         R"({"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},)"
         R"({"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],)"
         R"("defaultMode":420}},{"name":"dshm","emptyDir":{"medium":"Memory","sizeLimit":"8Gi"}}],"containers":[)";
    for (int c = 0; c < containers; ++c) {
      if (c) s += ',';
      container(s, c, gpu && c == 0);
    }
    s += R"(],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst",)"
         R"("serviceAccountName":"default","serviceAccount":"default","nodeName":")" + node +
         R"(","securityContext":{},"schedulerName":"default-scheduler","tolerations":[)"
         R"({"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"},)"
         R"({"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},)"
         R"({"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],)"
         R"("priority":)" + std::to_string(pick(0, 1) * 1000) +
         R"(,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},)";

    s += R"("status":{"phase":"Running","conditions":[)";
    const char* conditions[] = {"Initialized", "Ready", "ContainersReady", "PodScheduled"};
    for (int c = 0; c < 4; ++c) {
      if (c) s += ',';
      s += std::string(R"({"type":")") + conditions[c] +
           R"(","status":"True","lastProbeTime":null,"lastTransitionTime":")" + started + R"("})";
    }
    s += R"(],"hostIP":"10.0.)" + std::to_string(pick(0, 15)) + "." + std::to_string(pick(2, 254)) +
         R"(","podIP":")" + ip + R"(","podIPs":[{"ip":")" + ip + R"("}],"startTime":")" + started +
         R"(","containerStatuses":[)";
    for (int c = 0; c < containers; ++c) {
      if (c) s += ',';
      s += R"({"name":")" + container_name(c) + R"(","state":{"running":{"startedAt":")" + started +
           R"("}},"lastState":{},"ready":true,"restartCount":0,"image":")" + image(c) +
           R"(","imageID":")" + image(c) + "@sha256:" + hex(64) + R"(","containerID":"containerd://)" + hex(64) +
           R"(","started":true})";
    }
    s += R"(],"qosClass":"Burstable"}})";
    return s;
  }

 private:
  static std::string container_name(int c) { return c == 0 ? "main" : c == 1 ? "metrics-exporter" : "log-shipper"; }
  static std::string image(int c) {
    return c == 0 ? "nvcr.io/nvidia/pytorch:24.01-py3" : c == 1 ? "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.0" : "fluent/fluent-bit:2.2";
  }

  void container(std::string& s, int c, bool gpu) {
    const std::string cpu = std::to_string(pick(1, 16));
    const std::string mem = std::to_string(pick(1, 64)) + "Gi";
    std::string limits = R"({"cpu":")" + cpu + R"(","memory":")" + mem + "\"";
    std::string requests = R"({"cpu":")" + cpu + R"(","memory":")" + mem + "\"";
    if (gpu) {
      const std::string gpus = std::to_string(pick(1, 8));
      limits += R"(,"nvidia.com/gpu":")" + gpus + "\"";
      requests += R"(,"nvidia.com/gpu":")" + gpus + "\"";
    }
    limits += "}";
    requests += "}";
    if (c != 0) {
      // A sidecar: resources only, no probes, env or mounts.
      s += R"({"name":")" + container_name(c) + R"(","image":")" + image(c) + R"(","resources":{"limits":)" + limits +
           R"(,"requests":)" + requests + R"(},"terminationMessagePath":"/dev/termination-log",)"
           R"("terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"})";
      return;
    }
    s += R"({"name":")" + container_name(c) + R"(","image":")" + image(c) +
         R"(","command":["/bin/sh","-c"],"args":["exec torchrun --nproc_per_node=$(NGPUS) train.py"],)"
         R"("ports":[{"name":"metrics","containerPort":9400,"protocol":"TCP"}],"env":[)"
         R"({"name":"NCCL_DEBUG","value":"INFO"},{"name":"NGPUS","value":"8"},)"
         R"({"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],)"
         R"("resources":{"limits":)" + limits + R"(,"requests":)" + requests + R"(},"volumeMounts":[)"
         R"({"name":"dshm","mountPath":"/dev/shm"},{"name":"kube-api-access","readOnly":true,)"
         R"("mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],)"
         R"("livenessProbe":{"httpGet":{"path":"/healthz","port":9400,"scheme":"HTTP"},"initialDelaySeconds":30,)"
         R"("timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},)"
         R"("terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",)"
         R"("imagePullPolicy":"IfNotPresent","securityContext":{"allowPrivilegeEscalation":false,)"
         R"("capabilities":{"drop":["ALL"]}}})";
  }

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::string chars(std::size_t n, const char* alphabet, int size) {
    std::string out(n, ' ');
    for (auto& ch : out) ch = alphabet[pick(0, size - 1)];
    return out;
  }
  std::string alnum(std::size_t n) { return chars(n, "bcdfghjklmnpqrstvwxz2456789", 27); }
  std::string hex(std::size_t n) { return chars(n, "0123456789abcdef", 16); }
  std::string uid() { return hex(8) + "-" + hex(4) + "-4" + hex(3) + "-8" + hex(3) + "-" + hex(12); }
  static std::string num(std::size_t v, int width) {
    std::string s = std::to_string(v);
    return std::string(s.size() < static_cast<std::size_t>(width) ? width - s.size() : 0, '0') + s;
  }
  std::string timestamp() {
    char buf[32];
    std::snprintf(buf, sizeof buf, "2024-%02d-%02dT%02d:%02d:%02dZ", pick(1, 12), pick(1, 28), pick(0, 23), pick(0, 59),
                  pick(0, 59));
    return buf;
  }

  std::mt19937_64 rng_;
};

}  // namespace gpupool::bench
