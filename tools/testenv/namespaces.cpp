#include "gpupool/testenv/namespaces.h"

#include <stdexcept>

#include "gpupool/common/log.h"
#include "gpupool/testenv/wait.h"

namespace gpupool::testenv {

void create_namespace(const ControlPlane& cluster, const std::string& name,
                      const std::map<std::string, std::string>& labels, std::chrono::seconds timeout) {
  std::string label_json;
  for (const auto& [k, v] : labels) {
    label_json += (label_json.empty() ? "" : ",") + ("\"" + log::json_escape(k) + "\":\"" + log::json_escape(v) + "\"");
  }
  std::string manifest = "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" +
                         log::json_escape(name) + "\",\"labels\":{" + label_json + "}}}";
  CommandResult r = cluster.kubectl_result({"apply", "-f", "-"}, manifest);
  if (r.status != 0) throw std::runtime_error("creating namespace " + name + " failed: " + r.out + r.err);
  std::string last;
  bool ok = wait_until(
      [&] {
        CommandResult sa = cluster.kubectl_result({"get", "serviceaccount", "default", "-n", name, "-o", "name"});
        last = sa.err;
        return sa.status == 0;
      },
      timeout);
  if (!ok) {
    throw std::runtime_error("namespace " + name + " got no default ServiceAccount within " +
                             std::to_string(timeout.count()) + "s: " + last);
  }
}

void delete_namespace(const ControlPlane& cluster, const std::string& name, bool wait, std::chrono::seconds timeout) {
  CommandResult r = cluster.kubectl_result({"delete", "namespace", name, "--ignore-not-found",
                                            std::string("--wait=") + (wait ? "true" : "false"),
                                            "--timeout=" + std::to_string(timeout.count()) + "s"});
  if (r.status != 0) throw std::runtime_error("deleting namespace " + name + " failed: " + r.err);
}

}  // namespace gpupool::testenv
