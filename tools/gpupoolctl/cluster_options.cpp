#include "cluster_options.h"

#include <algorithm>
#include <cctype>

#include "gpupool/api/duration.h"

namespace gpupool::ctl {
namespace {

// kubectl's --request-timeout: "0" (none), a whole number of seconds, or a
// Go duration ("1s", "2m", "1m30s").
std::string check_timeout(const std::string& text) {
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return "";
  }
  const auto d = api::parse_duration(text);
  if (!d) return "invalid --request-timeout \"" + text + "\": " + d.error + " (e.g. 30s, 2m, 0 for none)";
  if (d.value->count() < 0) return "invalid --request-timeout \"" + text + "\": negative";
  return "";
}

std::chrono::milliseconds timeout_value(const std::string& text) {
  if (std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return std::chrono::seconds(std::stoll(text));
  }
  return std::chrono::duration_cast<std::chrono::milliseconds>(*api::parse_duration(text).value);
}

}  // namespace

void ClusterOptions::add_to(CLI::App& cmd, bool all_namespaces) {
  cmd.add_option("--kubeconfig", kubeconfig_, "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  cmd.add_option("--context", context_, "the kubeconfig context to use (default: its current-context)");
  cmd.add_option("-n,--namespace", namespace_, "namespace (default: the context's namespace, else default)")
      ->transform(CLI::Validator(
          [](std::string& value) {
            if (!value.empty() && value.front() == '=') value.erase(0, 1);  // kubectl's -n=NS
            return std::string();
          },
          ""));
  cmd.add_option("--request-timeout", request_timeout_,
                 "how long to wait for each answer of the API server: 30s, 2m, or seconds; 0 waits as long as it takes")
      ->check(CLI::Validator(check_timeout, "DURATION"));
  if (all_namespaces) {
    cmd.add_flag("-A,--all-namespaces", all_namespaces_, "every namespace (a given -n is ignored)");
  }
}

kube::RestConfig ClusterOptions::load() const {
  kube::KubeconfigOptions ko;
  if (!kubeconfig_.empty()) ko.path = kubeconfig_;
  if (!context_.empty()) ko.context = context_;
  kube::RestConfig config = kube::load_default(ko);
  if (!request_timeout_.empty()) config.timeout = timeout_value(request_timeout_);
  return config;
}

std::string ClusterOptions::namespace_for(const kube::RestConfig& config) const {
  if (!namespace_.empty()) return namespace_;
  return config.default_namespace.empty() ? "default" : config.default_namespace;
}

}  // namespace gpupool::ctl
