// The agents' Service and ServiceMonitor of a pool, and what the
// ServiceMonitor's relabelings do to targets: run by Prometheus' own
// relabeling (`promtool check service-discovery` on a file_sd job with the
// same relabel configs; file_sd answers at once, so a 3 s wait for
// discovery is plenty), they keep only the agents on the pool's nodes and
// give them pool, node and job.
#include "gpupool/monitoring/scrape.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <map>
#include <string>

#include "promtool_files.h"

namespace gpupool::monitoring {
namespace {

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

std::map<std::string, std::string> string_map(const rapidjson::Value& v) {
  std::map<std::string, std::string> out;
  for (const auto& m : v.GetObject()) out[m.name.GetString()] = m.value.GetString();
  return out;
}

TEST(Scrape, ObjectNames) {
  EXPECT_EQ(object_name("gpu-a"), "gpupool-gpu-a");
  EXPECT_EQ(dashboard_configmap_name("gpu-a"), "gpupool-gpu-a-dashboard");
  for (const std::string& pool : std::vector<std::string>{"a100.us-east", std::string(63, 'x'), std::string(55, 'y'), "9-lives"}) {
    const auto name = object_name(pool);
    SCOPED_TRACE(name);
    EXPECT_LE(name.size(), 63u);
    EXPECT_EQ(name.rfind("gpupool-", 0), 0u);
    EXPECT_NE(name.back(), '-');
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-"), std::string::npos);
  }
  EXPECT_EQ(object_name(std::string(55, 'y')), "gpupool-" + std::string(55, 'y')) << "63 characters fit";
  EXPECT_NE(object_name(std::string(56, 'y')), "gpupool-" + std::string(56, 'y'));
  EXPECT_NE(object_name(std::string(63, 'x')), object_name(std::string(62, 'x')));
}

TEST(Scrape, PrometheusDurations) {
  using namespace std::chrono_literals;
  EXPECT_EQ(prometheus_duration(30s), "30s");
  EXPECT_EQ(prometheus_duration(90s), "1m30s");
  EXPECT_EQ(prometheus_duration(1h), "1h");
  EXPECT_EQ(prometheus_duration(1500ms), "1s500ms");
  EXPECT_EQ(prometheus_duration(0ms), "0s");
}

TEST(Scrape, TheService) {
  MonitoringOptions options;
  options.namespace_name = "gpu-ops";
  options.extra_labels = {{"release", "prom"}};
  options.agent_metrics_port = 9400;
  const auto d = parse(agent_service("gpu-a", options));
  EXPECT_STREQ(d["kind"].GetString(), "Service");
  EXPECT_STREQ(d["metadata"]["name"].GetString(), "gpupool-gpu-a");
  EXPECT_STREQ(d["metadata"]["namespace"].GetString(), "gpu-ops");
  EXPECT_EQ(string_map(d["metadata"]["labels"]),
            (std::map<std::string, std::string>{{"app.kubernetes.io/component", "agent-metrics"},
                                                {"app.kubernetes.io/managed-by", "gpupool-controller"},
                                                {"app.kubernetes.io/name", "gpupool"},
                                                {"gpupool.io/pool", "gpu-a"},
                                                {"release", "prom"}}));
  EXPECT_EQ(string_map(d["spec"]["selector"]),
            (std::map<std::string, std::string>{{"app.kubernetes.io/name", "gpupool-agent"}}));
  EXPECT_STREQ(d["spec"]["clusterIP"].GetString(), "None");
  EXPECT_TRUE(d["spec"]["publishNotReadyAddresses"].GetBool());
  EXPECT_STREQ(d["spec"]["ports"][0]["name"].GetString(), "metrics");
  EXPECT_EQ(d["spec"]["ports"][0]["port"].GetInt(), 9400);
  EXPECT_EQ(d["spec"]["ports"][0]["targetPort"].GetInt(), 9400);
}

TEST(Scrape, TheServiceMonitor) {
  api::Monitoring monitoring;
  monitoring.scrape_interval = api::Duration::literal("1m30s");
  const auto d = parse(agent_service_monitor("gpu-a", monitoring, MonitoringOptions{}));
  EXPECT_STREQ(d["apiVersion"].GetString(), "monitoring.coreos.com/v1");
  EXPECT_STREQ(d["kind"].GetString(), "ServiceMonitor");
  EXPECT_STREQ(d["metadata"]["name"].GetString(), "gpupool-gpu-a");
  EXPECT_STREQ(d["metadata"]["namespace"].GetString(), "gpupool-system");
  const auto& spec = d["spec"];
  // Its own pool's Service, in its namespace.
  EXPECT_EQ(string_map(spec["selector"]["matchLabels"]),
            (std::map<std::string, std::string>{{"app.kubernetes.io/component", "agent-metrics"},
                                                {"gpupool.io/pool", "gpu-a"}}));
  EXPECT_STREQ(spec["namespaceSelector"]["matchNames"][0].GetString(), "gpupool-system");
  EXPECT_TRUE(spec["attachMetadata"]["node"].GetBool());
  const auto& ep = spec["endpoints"][0];
  EXPECT_STREQ(ep["port"].GetString(), "metrics");
  EXPECT_STREQ(ep["interval"].GetString(), "1m30s");
  EXPECT_TRUE(ep["honorLabels"].GetBool());
  EXPECT_EQ(ep["relabelings"].Size(), 5u);
}

// A Prometheus scrape config whose job has the ServiceMonitor's relabelings
// (camelCase to snake_case) over the targets of `targets_file`.
std::string scrape_config(const rapidjson::Value& relabelings, const std::string& targets_file) {
  static const std::map<std::string, std::string> keys = {{"sourceLabels", "source_labels"},
                                                          {"targetLabel", "target_label"}};
  rapidjson::Document cfg;
  auto& a = cfg.GetAllocator();
  rapidjson::Value configs(rapidjson::kArrayType);
  for (const auto& r : relabelings.GetArray()) {
    rapidjson::Value c(rapidjson::kObjectType);
    for (const auto& m : r.GetObject()) {
      const std::string key = m.name.GetString();
      const std::string name = keys.contains(key) ? keys.at(key) : key;
      c.AddMember(rapidjson::Value(name.c_str(), a), rapidjson::Value(m.value, a), a);
    }
    configs.PushBack(c, a);
  }
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  configs.Accept(w);
  return R"({"scrape_configs":[{"job_name":"gpupool-system/gpupool-gpu-a/0","honor_labels":true,)"
         R"("file_sd_configs":[{"files":[")" + targets_file + R"("]}],"relabel_configs":)" + buf.GetString() + "}]}";
}

// What the Prometheus Operator's own relabelings would have set on an agent
// target before ours, and the node metadata attachMetadata brings.
std::string target(const std::string& address, const std::string& node, const std::string& node_pool) {
  std::string labels = R"("__meta_kubernetes_pod_node_name":")" + node +
                       R"(","namespace":"gpupool-system","service":"gpupool-gpu-a","pod":"gpupool-agent-)" + node +
                       R"(","container":"agent","endpoint":"metrics","job":"gpupool-gpu-a")";
  if (!node_pool.empty()) labels += R"(,"__meta_kubernetes_node_label_gpupool_io_pool":")" + node_pool + "\"";
  return R"({"targets":[")" + address + R"("],"labels":{)" + labels + "}}";
}

// address -> the target's labels after relabeling (dropped targets left out).
std::map<std::string, std::map<std::string, std::string>> relabeled(const std::string& promtool, const std::string& pool,
                                                                    const std::string& targets) {
  const auto sm = parse(agent_service_monitor(pool, api::Monitoring{}, MonitoringOptions{}));
  testing::TempDir dir;
  const auto file = dir.write("targets.json", targets);
  const auto config = dir.write("prometheus.json", scrape_config(sm["spec"]["endpoints"][0]["relabelings"], file));
  const auto run = testing::run_promtool(promtool, {"check", "service-discovery", "--timeout=3s", config, "gpupool-system/gpupool-gpu-a/0"});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  rapidjson::Document d;
  d.Parse(run.out.c_str());
  EXPECT_TRUE(!d.HasParseError() && d.IsArray()) << run.output;
  std::map<std::string, std::map<std::string, std::string>> out;
  if (d.HasParseError() || !d.IsArray()) return out;
  for (const auto& t : d.GetArray()) {
    auto labels = string_map(t["labels"]);
    if (labels.empty()) continue;  // dropped
    const auto address = labels["__address__"];
    for (auto it = labels.begin(); it != labels.end();) it = it->first.rfind("__", 0) == 0 ? labels.erase(it) : std::next(it);
    out[address] = labels;
  }
  return out;
}

TEST(Scrape, RelabelingKeepsThePoolsAgentsAndLabelsThem) {
  GPUPOOL_REQUIRE_PROMTOOL(promtool);
  const auto got = relabeled(promtool, "gpu-a",
                             "[" + target("10.0.0.1:8080", "n1", "gpu-a") + "," + target("10.0.0.2:8080", "n2", "gpu-b") +
                                 "," + target("10.0.0.3:8080", "n3", "") + "," +
                                 target("10.0.0.4:8080", "n4", "gpu-a-2") + "]");
  const std::map<std::string, std::map<std::string, std::string>> want = {
      {"10.0.0.1:8080", {{"instance", "10.0.0.1:8080"}, {"job", "gpupool-agent"}, {"node", "n1"}, {"pool", "gpu-a"}}}};
  EXPECT_EQ(got, want);
}

TEST(Scrape, ADotInThePoolsNameMatchesADotOnly) {
  GPUPOOL_REQUIRE_PROMTOOL(promtool);
  const auto got =
      relabeled(promtool, "a.b", "[" + target("10.0.0.1:8080", "n1", "a.b") + "," + target("10.0.0.2:8080", "n2", "axb") + "]");
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got.begin()->first, "10.0.0.1:8080");
  EXPECT_EQ(got.begin()->second.at("pool"), "a.b");
}

}  // namespace
}  // namespace gpupool::monitoring
