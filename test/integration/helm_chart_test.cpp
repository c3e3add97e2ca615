// The Helm chart (helm/gpupool-operator) against config/default and the real
// control plane, with Helm itself ($GPUPOOL_HELM; tools/dev/test.sh builds it
// with tools/controlplane/build-helm.sh; without it every test is skipped):
// - drift: `helm template` with the default values renders the objects of
//   `kubectl kustomize config/default` less the Namespace: the same kinds,
//   names and namespaces, the same RBAC rules (in any order), the same
//   admission policies, workloads (container args in any order), Services
//   and CRDs; the chart's labels are a superset of config/default's.
// - every test/data/helm/values-*.yaml (and the defaults) renders objects the
//   API server accepts (server-side dry run, after the chart's CRDs are
//   Established); the defaults apply for real (and a second apply changes
//   nothing); values-full.yaml's GPUPolicy and GPUPools are created.
// - the values do what values.yaml says (images, replicas, webhooks,
//   monitoring, backend, extra flags, pools and policies).
// - `helm install` into another namespace binds the roles there;
//   `helm uninstall` removes the release.
// lint and template alone (no cluster): test/helm/chart_lint_test.sh.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"

namespace gpupool::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string kSourceDir = GPUPOOL_SOURCE_DIR;
const std::string kChart = kSourceDir + "/helm/gpupool-operator";
const std::string kRelease = "gpupool-operator";
const std::string kNamespace = "gpupool-system";
const std::string kValuesDir = kSourceDir + "/test/data/helm";

// "Kind namespace/name" (cluster-scoped: "Kind name") -> the object.
using Objects = std::map<std::string, YAML::Node>;
// A YAML tree flattened: "spec.template.spec.containers[0].image" -> its scalar.
using Flat = std::map<std::string, std::string>;

std::string object_key(const YAML::Node& o) {
  const auto meta = o["metadata"];
  // kustomize sets its namespace on the admission policies too (cluster-scoped:
  // the API server ignores it).
  static const std::set<std::string> cluster_scoped = {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"};
  const std::string ns = meta && meta["namespace"] && !cluster_scoped.count(o["kind"].as<std::string>())
                             ? meta["namespace"].as<std::string>() : "";
  return o["kind"].as<std::string>() + " " + (ns.empty() ? "" : ns + "/") + meta["name"].as<std::string>();
}

// Every object of a multi-document YAML stream; a duplicate is a failure.
Objects parse_objects(const std::string& text, const std::string& what) {
  Objects out;
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    ADD_FAILURE() << what << ": not YAML: " << e.what();
    return out;
  }
  for (const auto& doc : docs) {
    if (!doc.IsMap()) continue;
    if (!doc["kind"] || !doc["metadata"] || !doc["metadata"]["name"]) {
      ADD_FAILURE() << what << ": an object without kind or metadata.name";
      continue;
    }
    if (!out.emplace(object_key(doc), doc).second) ADD_FAILURE() << what << ": " << object_key(doc) << " twice";
  }
  return out;
}

// A multi-line scalar with every run of white space one blank, trimmed. The
// CEL of the admission policies is written as folded block scalars (>-) with
// more-indented lines; kustomize re-emits them, and yaml-cpp reads the
// result with other line breaks than the original. Whitespace between CEL
// tokens means nothing; the API server gets the original's either way.
std::string squeeze(const std::string& s) {
  if (s.find('\n') == std::string::npos) return s;
  std::string out;
  bool blank = false;
  for (char c : s) {
    if (c == ' ' || c == '\n' || c == '\t') {
      blank = !out.empty();
    } else {
      if (blank) out += ' ';
      blank = false;
      out += c;
    }
  }
  return out;
}

void flatten(const YAML::Node& n, const std::string& path, Flat& out) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      if (n.size() == 0) out[path] = "{}";
      for (const auto& kv : n) flatten(kv.second, (path.empty() ? "" : path + ".") + kv.first.as<std::string>(), out);
      break;
    case YAML::NodeType::Sequence:
      if (n.size() == 0) out[path] = "[]";
      for (std::size_t i = 0; i < n.size(); ++i) flatten(n[i], path + "[" + std::to_string(i) + "]", out);
      break;
    case YAML::NodeType::Scalar:
      out[path] = squeeze(n.Scalar());
      break;
    default:
      out[path] = "null";
  }
}

Flat flat(const YAML::Node& n) {
  Flat out;
  flatten(n, "", out);
  return out;
}

// A canonical one-line form with every sequence sorted: equal for RBAC rules
// that differ only in the order of their apiGroups, resources or verbs.
std::string canonical(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      std::map<std::string, std::string> fields;
      for (const auto& kv : n) fields[kv.first.as<std::string>()] = canonical(kv.second);
      std::string s = "{";
      for (const auto& [k, v] : fields) s += (s.size() > 1 ? ", " : "") + k + ": " + v;
      return s + "}";
    }
    case YAML::NodeType::Sequence: {
      std::vector<std::string> items;
      for (const auto& item : n) items.push_back(canonical(item));
      std::sort(items.begin(), items.end());
      std::string s = "[";
      for (const auto& i : items) s += (s.size() > 1 ? ", " : "") + i;
      return s + "]";
    }
    case YAML::NodeType::Scalar:
      return n.Scalar().empty() ? "\"\"" : n.Scalar();
    default:
      return "null";
  }
}

// Lines "- PATH: VALUE" (config/default only), "+ PATH: VALUE" (chart only),
// "~ PATH: A -> B" (config/default A, chart B); empty when equal.
std::string flat_diff(const Flat& config, const Flat& chart) {
  std::ostringstream o;
  for (const auto& [k, v] : config) {
    const auto it = chart.find(k);
    if (it == chart.end()) {
      o << "    - " << k << ": " << v << "\n";
    } else if (it->second != v) {
      o << "    ~ " << k << ": " << v << " -> " << it->second << "\n";
    }
  }
  for (const auto& [k, v] : chart) {
    if (!config.count(k)) o << "    + " << k << ": " << v << "\n";
  }
  return o.str();
}

std::string set_diff(const std::set<std::string>& config, const std::set<std::string>& chart) {
  std::ostringstream o;
  for (const auto& s : config) {
    if (!chart.count(s)) o << "    - " << s << "\n";
  }
  for (const auto& s : chart) {
    if (!config.count(s)) o << "    + " << s << "\n";
  }
  return o.str();
}

bool is_args_path(const std::string& path) {
  const auto p = path.rfind(".args[");
  return p != std::string::npos && path.find('.', p + 1) == std::string::npos;
}

bool is_label_path(const std::string& path) { return path.find("metadata.labels.") != std::string::npos; }

// Every difference between config/default's object and the chart's, in
// words; empty when they match. Labels (the object's and its pod template's):
// config/default's must be among the chart's, which adds Helm's. RBAC rules:
// as a set. Container args: as a set.
std::string object_diff(const YAML::Node& config, const YAML::Node& chart) {
  std::ostringstream o;
  Flat a, b, labels_a, labels_b;
  for (const auto& [k, v] : flat(config)) {
    if (k == "metadata.namespace" && object_key(config).find('/') == std::string::npos) continue;  // see object_key
    if (is_label_path(k)) {
      labels_a[k] = v;
    } else if (k.rfind("rules[", 0) != 0 && !is_args_path(k)) {
      a[k] = v;
    }
  }
  for (const auto& [k, v] : flat(chart)) {
    if (is_label_path(k)) {
      labels_b[k] = v;
    } else if (k.rfind("rules[", 0) != 0 && !is_args_path(k)) {
      b[k] = v;
    }
  }
  if (auto d = flat_diff(a, b); !d.empty()) o << "  fields (- config/default only, + chart only, ~ changed):\n" << d;
  for (const auto& [k, v] : labels_a) {
    const auto it = labels_b.find(k);
    if (it == labels_b.end() || it->second != v) {
      o << "  " << k << ": config/default " << v << ", chart " << (it == labels_b.end() ? "(none)" : it->second) << "\n";
    }
  }

  std::set<std::string> rules_a, rules_b;
  if (config["rules"]) {
    for (const auto& r : config["rules"]) rules_a.insert(canonical(r));
  }
  if (chart["rules"]) {
    for (const auto& r : chart["rules"]) rules_b.insert(canonical(r));
  }
  if (auto d = set_diff(rules_a, rules_b); !d.empty()) o << "  rules (- config/default only, + chart only):\n" << d;

  // Containers by name: their args as sets.
  auto args = [](const YAML::Node& obj) {
    std::map<std::string, std::set<std::string>> out;
    const auto containers = obj["spec"] && obj["spec"]["template"] ? obj["spec"]["template"]["spec"]["containers"] : YAML::Node();
    if (containers && containers.IsSequence()) {
      for (const auto& c : containers) {
        auto& s = out[c["name"].as<std::string>()];
        if (c["args"]) {
          for (const auto& arg : c["args"]) s.insert(arg.as<std::string>());
        }
      }
    }
    return out;
  };
  const auto args_a = args(config), args_b = args(chart);
  for (const auto& [name, set] : args_a) {
    const auto it = args_b.find(name);
    if (it == args_b.end()) continue;  // reported with the fields
    if (auto d = set_diff(set, it->second); !d.empty()) {
      o << "  container " << name << " args (- config/default only, + chart only):\n" << d;
    }
  }
  return o.str();
}

const YAML::Node* find(const Objects& objects, const std::string& key) {
  const auto it = objects.find(key);
  return it == objects.end() ? nullptr : &it->second;
}

// The container `name`'s args of workload `key`, in order.
std::vector<std::string> container_args(const Objects& objects, const std::string& key, const std::string& name) {
  std::vector<std::string> out;
  const auto* o = find(objects, key);
  if (!o) return out;
  for (const auto& c : (*o)["spec"]["template"]["spec"]["containers"]) {
    if (c["name"].as<std::string>() != name) continue;
    for (const auto& a : c["args"]) out.push_back(a.as<std::string>());
  }
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

bool has_prefix(const std::vector<std::string>& v, const std::string& prefix) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.rfind(prefix, 0) == 0; });
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

// The documents of a rendered stream that hold CRDs, and the others.
std::pair<std::string, std::string> split_crds(const std::string& rendered) {
  std::string crds, rest, doc;
  auto flush = [&] {
    if (doc.find("\nkind: CustomResourceDefinition\n") != std::string::npos) {
      crds += "---\n" + doc;
    } else if (doc.find("\nkind: ") != std::string::npos || doc.rfind("kind: ", 0) == 0) {
      rest += "---\n" + doc;
    }
    doc.clear();
  };
  std::istringstream in(rendered);
  for (std::string line; std::getline(in, line);) {
    if (line == "---") {
      flush();
    } else {
      doc += line + "\n";
    }
  }
  flush();
  return {crds, rest};
}

// Runs `f` when it goes out of scope (also on a failed ASSERT).
struct Cleanup {
  std::function<void()> f;
  ~Cleanup() { f(); }
};

class HelmChartTest : public ClusterTest {
 protected:
  void SetUp() override {
    const char* helm = std::getenv("GPUPOOL_HELM");
    if (!helm || !*helm) {
      GTEST_SKIP() << "GPUPOOL_HELM is not set: tools/dev/test.sh sets it to the Helm that "
                      "tools/controlplane/build-helm.sh builds (or: export "
                      "GPUPOOL_HELM=$(tools/controlplane/build-helm.sh --bin-dir)/helm)";
    }
    helm_ = helm;
    ASSERT_TRUE(fs::exists(helm_)) << "GPUPOOL_HELM=" << helm_ << " does not exist";
    std::string dir = (fs::temp_directory_path() / "helm-chart-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    ClusterTest::SetUp();
  }

  void TearDown() override {
    if (helm_.empty()) return;
    ClusterTest::TearDown();
    std::error_code ec;
    if (HasFailure()) {
      std::cerr << "rendered files kept in " << dir_ << "\n";
    } else {
      fs::remove_all(dir_, ec);
    }
  }

  // `helm ARGS`, Helm's configuration and cache in the test's directory, with
  // the control plane's admin kubeconfig.
  testenv::CommandResult helm(const std::vector<std::string>& args) {
    return testenv::run_command(helm_, args, "", 120s,
                                {"HELM_CONFIG_HOME=" + dir_ + "/config", "HELM_CACHE_HOME=" + dir_ + "/cache",
                                 "HELM_DATA_HOME=" + dir_ + "/data", "KUBECONFIG=" + cluster().kubeconfig_path()});
  }

  // `helm template` of the chart into gpupool-system with the CRDs; `values`
  // (relative to the source tree) when not empty.
  std::string render(const std::string& values = "") {
    std::vector<std::string> args = {"template", kRelease, kChart, "--namespace", kNamespace, "--include-crds"};
    if (!values.empty()) args.insert(args.end(), {"-f", kSourceDir + "/" + values});
    auto r = helm(args);
    EXPECT_EQ(r.status, 0) << "helm template " << (values.empty() ? "(default values)" : values) << ":\n" << r.err;
    return r.out;
  }

  Objects rendered_objects(const std::string& values = "") {
    return parse_objects(render(values), "helm template " + (values.empty() ? std::string("(default values)") : values));
  }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  // Applies the chart's CRDs (from `rendered`) for real and waits until they are
  // Established; returns the path of the other objects.
  std::string apply_crds(const std::string& rendered, const std::string& label) {
    const auto [crds, rest] = split_crds(rendered);
    EXPECT_NE(crds, "") << label << ": no CRDs rendered";
    std::string out;
    EXPECT_EQ(cluster().kubectl({"apply", "--server-side", "-f", write(label + "-crds.yaml", crds)}, &out), 0) << out;
    EXPECT_EQ(cluster().kubectl({"wait", "--for=condition=Established", "--timeout=60s", "-f", dir_ + "/" + label + "-crds.yaml"},
                                &out), 0) << out;
    return write(label + ".yaml", rest);
  }

  std::string helm_;
  std::string dir_;
};

TEST_F(HelmChartTest, DefaultValuesRenderConfigDefault) {
  auto kustomized = cluster().kubectl_result({"kustomize", kSourceDir + "/config/default"});
  ASSERT_EQ(kustomized.status, 0) << kustomized.err;
  auto config = parse_objects(kustomized.out, "kubectl kustomize config/default");
  const auto chart = rendered_objects();
  ASSERT_FALSE(HasFailure());
  for (auto it = config.begin(); it != config.end();) {
    it = it->second["kind"].as<std::string>() == "Namespace" ? config.erase(it) : std::next(it);
  }
  ASSERT_GE(config.size(), 30u);

  std::set<std::string> config_keys, chart_keys;
  for (const auto& [k, v] : config) config_keys.insert(k);
  for (const auto& [k, v] : chart) chart_keys.insert(k);
  EXPECT_TRUE(config_keys == chart_keys) << "objects of config/default (less its Namespace) and of the chart "
                                        "(- config/default only, + chart only):\n" << set_diff(config_keys, chart_keys);

  std::ostringstream report;
  int differing = 0;
  for (const auto& [key, object] : config) {
    const auto* other = find(chart, key);
    if (!other) continue;
    if (auto d = object_diff(object, *other); !d.empty()) {
      ++differing;
      report << key << "\n" << d;
    }
  }
  EXPECT_EQ(differing, 0) << "the chart with its default values and config/default differ in " << differing
                          << " object(s); change both:\n" << report.str();
}

TEST_F(HelmChartTest, EveryValuesFileAppliesAndTheDefaultsForReal) {
  std::vector<std::string> values_files = {""};
  for (const auto& e : fs::directory_iterator(kValuesDir)) {
    const auto name = e.path().filename().string();
    if (name.rfind("values-", 0) == 0 && e.path().extension() == ".yaml") values_files.push_back("test/data/helm/" + name);
  }
  std::sort(values_files.begin() + 1, values_files.end());
  ASSERT_GE(values_files.size(), 4u) << "test/data/helm/values-*.yaml";

  // A server-side dry run cannot create the namespace its objects go to: it exists first.
  cluster().kubectl_result({"create", "namespace", kNamespace});
  std::string out;
  std::map<std::string, std::string> rest;  // values file -> rendered objects but the CRDs
  for (const auto& values : values_files) {
    const std::string label = values.empty() ? "default" : fs::path(values).stem().string();
    SCOPED_TRACE(label);
    const auto rendered = render(values);
    ASSERT_FALSE(HasFailure());
    rest[values] = apply_crds(rendered, label);
    EXPECT_EQ(cluster().kubectl({"apply", "--server-side", "--dry-run=server", "-f", rest[values]}, &out), 0)
        << label << ":\n" << out;
  }

  // The defaults for real; a second apply changes nothing (what Argo CD and
  // Flux compute: the server-side diff is empty). Whatever happens, the
  // objects go again (the namespace and the CRDs stay): the other tests
  // install the same cluster-scoped objects.
  const Cleanup cleanup{[&] {
    cluster().kubectl_result({"delete", "--ignore-not-found", "-f", dir_ + "/full-crs.yaml"});
    auto d = cluster().kubectl_result({"delete", "--ignore-not-found", "--wait=true", "-f", rest[""]});
    EXPECT_EQ(d.status, 0) << d.err;
  }};
  ASSERT_EQ(cluster().kubectl({"apply", "--server-side", "-f", rest[""]}, &out), 0) << out;
  auto diff = cluster().kubectl_result({"diff", "--server-side", "-f", rest[""]});
  EXPECT_EQ(diff.status, 0) << diff.out << diff.err;
  EXPECT_EQ(cluster().kubectl({"get", "deployment/gpupool-controller", "daemonset/gpupool-agent", "-n", kNamespace}, &out), 0)
      << out;
  EXPECT_EQ(cluster().kubectl({"get", "validatingadmissionpolicy/gpupool-agent-nodes",
                               "validatingadmissionpolicybinding/gpupool-agent-nodes"}, &out), 0) << out;

  // values-full's policy and pools, for real (nothing else of it: the same
  // objects as the defaults').
  auto r = helm({"template", kRelease, kChart, "--namespace", kNamespace, "-f", kValuesDir + "/values-full.yaml", "--show-only",
                 "templates/pools.yaml"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto crs = write("full-crs.yaml", r.out);
  ASSERT_EQ(cluster().kubectl({"apply", "--server-side", "-f", crs}, &out), 0) << out;
  EXPECT_EQ(cluster().kubectl({"get", "gpupolicy/default-gpu-policy", "gpupool/a100-80gb-mig", "gpupool/t4-shared"}, &out), 0)
      << out;
}

TEST_F(HelmChartTest, ValuesDoWhatValuesYamlSays) {
  const std::string controller = "Deployment " + kNamespace + "/gpupool-controller";
  const std::string agent = "DaemonSet " + kNamespace + "/gpupool-agent";
  const std::string webhook_service = "Service " + kNamespace + "/gpupool-webhook";
  const std::string metrics_service = "Service " + kNamespace + "/gpupool-controller-metrics";
  const std::string pdb = "PodDisruptionBudget " + kNamespace + "/gpupool-controller";
  {
    SCOPED_TRACE("default values");
    const auto o = rendered_objects();
    ASSERT_TRUE(find(o, controller) && find(o, agent));
    EXPECT_TRUE(find(o, webhook_service));
    EXPECT_TRUE(find(o, metrics_service));
    EXPECT_TRUE(find(o, pdb));
    const auto args = container_args(o, controller, "controller");
    EXPECT_TRUE(has(args, "--webhook-bind-address=:9443")) << join(args);
    EXPECT_FALSE(has_prefix(args, "--monitoring-label")) << join(args);
    EXPECT_TRUE(has(container_args(o, agent, "agent"), "--backend=auto"));
    for (const auto& [key, object] : o) {
      EXPECT_NE(object["kind"].as<std::string>(), "GPUPool") << key;
      EXPECT_NE(object["kind"].as<std::string>(), "Namespace") << key;
    }
  }
  {
    SCOPED_TRACE("values-minimal.yaml");
    const auto o = rendered_objects("test/data/helm/values-minimal.yaml");
    EXPECT_FALSE(find(o, webhook_service));
    EXPECT_FALSE(find(o, metrics_service));
    const auto args = container_args(o, controller, "controller");
    EXPECT_FALSE(has_prefix(args, "--webhook-")) << join(args);
    EXPECT_TRUE(has(args, "--metrics-bind-address=:8080")) << join(args);
  }
  {
    SCOPED_TRACE("values-amd.yaml");
    const auto o = rendered_objects("test/data/helm/values-amd.yaml");
    ASSERT_TRUE(find(o, agent));
    EXPECT_FALSE(find(o, webhook_service));
    EXPECT_TRUE(find(o, metrics_service));
    EXPECT_FALSE(has_prefix(container_args(o, controller, "controller"), "--webhook-"));
    const auto args = container_args(o, agent, "agent");
    EXPECT_TRUE(has(args, "--backend=amd")) << join(args);
    EXPECT_FALSE(has(args, "--backend=auto")) << join(args);
    const auto terms = (*find(o, agent))["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]
                                            ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
    ASSERT_EQ(terms.size(), 1u);
    EXPECT_EQ(terms[0]["matchExpressions"][0]["key"].as<std::string>(), "feature.node.kubernetes.io/amd-gpu");
  }
  {
    SCOPED_TRACE("values-full.yaml");
    const auto o = rendered_objects("test/data/helm/values-full.yaml");
    ASSERT_TRUE(find(o, controller) && find(o, agent));
    const auto& deploy = *find(o, controller);
    EXPECT_EQ(deploy["spec"]["replicas"].as<int>(), 3);
    const auto pod = deploy["spec"]["template"]["spec"];
    EXPECT_EQ(pod["containers"][0]["image"].as<std::string>(), "registry.example.com/gpupool/gpupool-controller:0.1.0-rc.2");
    EXPECT_EQ(pod["containers"][0]["imagePullPolicy"].as<std::string>(), "Always");
    EXPECT_EQ(pod["containers"][0]["resources"]["limits"]["memory"].as<std::string>(), "1Gi");
    ASSERT_EQ(pod["imagePullSecrets"].size(), 2u);
    EXPECT_EQ(pod["imagePullSecrets"][0]["name"].as<std::string>(), "registry-credentials");
    EXPECT_EQ(pod["imagePullSecrets"][1]["name"].as<std::string>(), "mirror-credentials");
    const auto args = container_args(o, controller, "controller");
    EXPECT_TRUE(has(args, "--monitoring-label=release=kube-prometheus-stack")) << join(args);
    EXPECT_TRUE(has(args, "--monitoring-label=team=ml-platform")) << join(args);
    ASSERT_FALSE(args.empty());
    EXPECT_EQ(args.back(), "--concurrency=4") << "extraArgs come last: " << join(args);
    const auto agent_pod = (*find(o, agent))["spec"]["template"]["spec"];
    EXPECT_EQ(agent_pod["containers"][0]["image"].as<std::string>(), "registry.example.com/gpupool/gpupool-agent:0.1.0-rc.2");
    EXPECT_EQ(agent_pod["imagePullSecrets"].size(), 2u);
    EXPECT_EQ(agent_pod["tolerations"].size(), 2u);
    EXPECT_EQ(agent_pod["containers"][0]["resources"]["limits"]["memory"].as<std::string>(), "512Mi");
    const auto agent_args = container_args(o, agent, "agent");
    EXPECT_TRUE(has(agent_args, "--backend=nvml")) << join(agent_args);
    EXPECT_TRUE(has(agent_args, "--dcgm-naming=dcgm-4.9")) << join(agent_args);
    const auto* policy = find(o, "GPUPolicy default-gpu-policy");
    ASSERT_TRUE(policy);
    EXPECT_EQ((*policy)["spec"]["quota"]["approval"].as<std::string>(), "Automatic");
    const auto* a100 = find(o, "GPUPool a100-80gb-mig");
    ASSERT_TRUE(a100);
    EXPECT_EQ((*a100)["metadata"]["labels"]["team"].as<std::string>(), "ml-platform");
    EXPECT_EQ((*a100)["metadata"]["annotations"]["example.com/owner"].as<std::string>(), "ml-platform");
    EXPECT_EQ((*a100)["spec"]["partitioning"]["nvidia"]["devices"][0]["profiles"]["3g.40gb"].as<int>(), 1);
    EXPECT_TRUE(find(o, "GPUPool t4-shared"));
  }
  {
    SCOPED_TRACE("controller.replicas=1: no PodDisruptionBudget (it would block every drain)");
    auto r = helm({"template", kRelease, kChart, "--namespace", kNamespace, "--set", "controller.replicas=1"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto o = parse_objects(r.out, "replicas=1");
    EXPECT_TRUE(find(o, controller));
    EXPECT_FALSE(find(o, pdb));
  }
  {
    SCOPED_TRACE("values.schema.json refuses what the binaries would");
    auto r = helm({"template", kRelease, kChart, "--set", "agent.backend=nvidia"});
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_NE(r.err.find("/agent/backend"), std::string::npos) << r.err;
    r = helm({"template", kRelease, kChart, "--set", "pools[0].name=no-spec"});
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_NE(r.err.find("spec"), std::string::npos) << r.err;
  }
}

TEST_F(HelmChartTest, HelmInstallsIntoAnotherNamespaceAndUninstalls) {
  // The release goes to the test's namespace: the bindings' subjects follow it.
  bool uninstalled = false;
  const Cleanup cleanup{[&] {
    if (!uninstalled) helm({"uninstall", kRelease, "--namespace", ns(), "--wait", "--timeout", "60s"});
  }};
  auto r = helm({"install", kRelease, kChart, "--namespace", ns(), "-f", kValuesDir + "/values-full.yaml", "--timeout", "60s"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("2 GPUPool(s), 1 GPUPolicy(ies)"), std::string::npos) << "NOTES.txt:\n" << r.out;
  std::string out;
  EXPECT_EQ(cluster().kubectl({"get", "deployment/gpupool-controller", "daemonset/gpupool-agent", "serviceaccount/gpupool-agent",
                               "-n", ns()}, &out), 0) << out;
  auto subject = cluster().kubectl_result({"get", "clusterrolebinding/gpupool-agent", "-o", "jsonpath={.subjects[0].namespace}"});
  EXPECT_EQ(subject.out, ns()) << subject.err;
  subject = cluster().kubectl_result({"get", "rolebinding/gpupool-controller", "-n", ns(), "-o",
                                      "jsonpath={.subjects[0].namespace}"});
  EXPECT_EQ(subject.out, ns()) << subject.err;
  EXPECT_EQ(cluster().kubectl({"get", "gpupool/a100-80gb-mig", "gpupool/t4-shared", "gpupolicy/default-gpu-policy"}, &out), 0)
      << out;
  r = helm({"status", kRelease, "--namespace", ns()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("STATUS: deployed"), std::string::npos) << r.out;

  r = helm({"uninstall", kRelease, "--namespace", ns(), "--wait", "--timeout", "60s"});
  uninstalled = true;
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  auto gone = cluster().kubectl_result({"get", "clusterrole/gpupool-controller", "gpupool/a100-80gb-mig", "--ignore-not-found",
                                        "-o", "name"});
  EXPECT_EQ(gone.out, "") << "left after helm uninstall";
  // The CRDs stay: Helm never deletes them.
  EXPECT_EQ(cluster().kubectl({"get", "crd/gpupools.gpupool.io"}, &out), 0) << out;
}

}  // namespace
}  // namespace gpupool::test
