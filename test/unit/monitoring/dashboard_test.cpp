// The shipped Grafana dashboard: valid JSON with the variables and panels it
// promises, made per pool, in a ConfigMap the Grafana sidecar loads; every
// query reads (promtool check rules parses each one) and uses only metric
// names and labels the project exports (exported_metrics.h), which a panel
// with an unknown metric or label fails.
#include "gpupool/monitoring/dashboard.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "exported_metrics.h"
#include "promql_names.h"
#include "promtool_files.h"

namespace gpupool::monitoring {
namespace {

using testing::Catalog;

rapidjson::Document parse(std::string_view text) {
  rapidjson::Document d;
  d.Parse(text.data(), text.size());
  EXPECT_FALSE(d.HasParseError()) << "offset " << d.GetErrorOffset();
  return d;
}

std::string str(const rapidjson::Value& v, const char* key) {
  return v.IsObject() && v.HasMember(key) && v[key].IsString() ? v[key].GetString() : "";
}

// One query of the dashboard: a panel target's expression and legend, or a
// variable's label_values(expression, label) (the label checked as a legend).
struct Query {
  std::string where;
  std::string expr;
  std::string legend;
};

void panel_queries(const rapidjson::Value& panels, std::vector<Query>& out) {
  for (const auto& p : panels.GetArray()) {
    if (p.HasMember("panels")) panel_queries(p["panels"], out);
    if (!p.HasMember("targets")) continue;
    for (const auto& t : p["targets"].GetArray()) {
      std::string legend = str(t, "legendFormat");
      if (legend == "__auto") legend.clear();
      out.push_back({"panel '" + str(p, "title") + "' target " + str(t, "refId"), str(t, "expr"), legend});
    }
  }
}

std::vector<Query> dashboard_queries(const rapidjson::Value& d) {
  std::vector<Query> out;
  panel_queries(d["panels"], out);
  static const std::regex label_values(R"(^label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)$)");
  for (const auto& v : d["templating"]["list"].GetArray()) {
    if (str(v, "type") != "query") continue;
    const std::string q = v["query"].IsString() ? v["query"].GetString() : str(v["query"], "query");
    std::smatch m;
    if (std::regex_match(q, m, label_values)) {
      out.push_back({"variable " + str(v, "name"), m[1], "{{" + std::string(m[2]) + "}}"});
    } else {
      out.push_back({"variable " + str(v, "name") + " (not label_values(expr, label))", q, ""});
    }
  }
  return out;
}

// Every problem of every query, "where: problem".
std::vector<std::string> problems(const rapidjson::Value& d, const Catalog& catalog) {
  std::vector<std::string> out;
  for (const auto& q : dashboard_queries(d)) {
    if (q.expr.empty()) out.push_back(q.where + ": no expression");
    for (const auto& p : testing::unknown_names(q.expr, catalog, q.legend)) out.push_back(q.where + ": " + p);
  }
  return out;
}

TEST(Dashboard, TheTemplateHasItsVariablesAndPanels) {
  const auto d = parse(dashboard_template());
  ASSERT_TRUE(d.IsObject());
  EXPECT_STREQ(d["uid"].GetString(), "gpupool");
  std::map<std::string, std::string> vars;
  for (const auto& v : d["templating"]["list"].GetArray()) vars[str(v, "name")] = str(v, "definition");
  EXPECT_EQ(vars["pool"], "label_values(gpupool_pool_nodes, pool)");
  EXPECT_EQ(vars["node"], R"(label_values(gpupool_gpu_info{pool="$pool"}, node))");
  EXPECT_EQ(vars["namespace"], "label_values(gpupool_tenantquota_granted, namespace)");
  EXPECT_TRUE(vars.contains("datasource"));

  std::set<int> ids;
  std::set<std::string> titles;
  std::string all_exprs;
  for (const auto& p : d["panels"].GetArray()) {
    EXPECT_TRUE(ids.insert(p["id"].GetInt()).second) << "panel id " << p["id"].GetInt() << " twice";
    titles.insert(str(p, "title"));
    ASSERT_TRUE(p.HasMember("gridPos"));
    if (str(p, "type") == "row") continue;
    EXPECT_EQ(str(p["datasource"], "uid"), "${datasource}") << str(p, "title");
    for (const auto& t : p["targets"].GetArray()) {
      EXPECT_EQ(str(t["datasource"], "uid"), "${datasource}") << str(p, "title");
      all_exprs += str(t, "expr") + "\n";
    }
  }
  for (const char* t : {"Capacity, granted and allocated", "Rollout progress", "Utilisation by GPU and MIG instance",
                        "Utilisation by namespace", "Utilisation by tenant", "GPUs by pod", "Memory used", "Temperature",
                        "Power", "XID errors", "GPUs by health", "Granted, used, borrowed, waiting", "Agents"}) {
    EXPECT_TRUE(titles.contains(t)) << "no panel " << t;
  }
  for (const char* m : {"gpupool_gpu_utilization_ratio", "gpupool_gpu_memory_used_bytes", "gpupool_gpu_temperature_celsius",
                        "gpupool_gpu_power_watts", "gpupool_gpu_xid_errors_total", "gpupool_gpu_health",
                        "gpupool_pool_capacity", "gpupool_pool_granted", "gpupool_pool_allocated", "gpupool_pool_rollout_nodes",
                        "gpupool_tenantquota_granted", "gpupool_tenantquota_used", "gpupool_tenantquota_borrowed",
                        "gpupool_tenantquota_waiting", "up{"}) {
    EXPECT_NE(all_exprs.find(m), std::string::npos) << "no panel queries " << m;
  }
}

TEST(Dashboard, MadeForAPool) {
  const auto d = parse(dashboard_json("gpu-a"));
  EXPECT_STREQ(d["uid"].GetString(), "gpupool-gpu-a");
  EXPECT_STREQ(d["title"].GetString(), "GPU pool gpu-a");
  for (const auto& v : d["templating"]["list"].GetArray()) {
    if (str(v, "name") == "pool") {
      EXPECT_EQ(str(v["current"], "value"), "gpu-a");
    }
  }
  EXPECT_EQ(d["panels"].Size(), parse(dashboard_template())["panels"].Size());
}

TEST(Dashboard, UidsAreGrafanasAndDistinct) {
  EXPECT_EQ(dashboard_uid("gpu-a"), "gpupool-gpu-a");
  for (const std::string& pool : std::vector<std::string>{"a100.us-east", std::string(63, 'x'), "h100-inference-europe-west4-large"}) {
    const auto uid = dashboard_uid(pool);
    EXPECT_LE(uid.size(), 40u) << uid;
    EXPECT_TRUE(std::regex_match(uid, std::regex("[a-zA-Z0-9_-]+"))) << uid;
  }
  EXPECT_NE(dashboard_uid("a100.us-east"), dashboard_uid("a100-us-east"));
  EXPECT_NE(dashboard_uid(std::string(63, 'x')), dashboard_uid(std::string(62, 'x')));
}

TEST(Dashboard, TheConfigMapForGrafanasSidecar) {
  MonitoringOptions options;
  options.namespace_name = "monitoring";
  const auto cm = parse(dashboard_configmap("gpu-a", options));
  EXPECT_STREQ(cm["apiVersion"].GetString(), "v1");
  EXPECT_STREQ(cm["kind"].GetString(), "ConfigMap");
  EXPECT_STREQ(cm["metadata"]["name"].GetString(), "gpupool-gpu-a-dashboard");
  EXPECT_STREQ(cm["metadata"]["namespace"].GetString(), "monitoring");
  EXPECT_STREQ(cm["metadata"]["labels"]["grafana_dashboard"].GetString(), "1");
  EXPECT_STREQ(cm["metadata"]["labels"]["gpupool.io/pool"].GetString(), "gpu-a");
  ASSERT_TRUE(cm["data"].HasMember("gpupool-gpu-a.json"));
  EXPECT_EQ(std::string(cm["data"]["gpupool-gpu-a.json"].GetString()), dashboard_json("gpu-a"));
}

TEST(Dashboard, EveryQueryUsesOnlyExportedMetricsAndLabels) {
  const auto catalog = testing::exported_catalog();
  const auto d = parse(dashboard_template());
  const auto queries = dashboard_queries(d);
  EXPECT_GT(queries.size(), 30u);
  EXPECT_EQ(problems(d, catalog), std::vector<std::string>{});
}

TEST(Dashboard, AnUnknownMetricOrLabelInAPanelFails) {
  const auto catalog = testing::exported_catalog();
  auto d = parse(dashboard_template());
  auto& a = d.GetAllocator();
  const auto add_panel = [&](const std::string& expr, const std::string& legend) {
    rapidjson::Value target(rapidjson::kObjectType);
    target.AddMember("refId", "A", a);
    target.AddMember("expr", rapidjson::Value(expr.c_str(), a), a);
    target.AddMember("legendFormat", rapidjson::Value(legend.c_str(), a), a);
    rapidjson::Value targets(rapidjson::kArrayType);
    targets.PushBack(target, a);
    rapidjson::Value panel(rapidjson::kObjectType);
    panel.AddMember("type", "timeseries", a);
    panel.AddMember("title", "Added", a);
    panel.AddMember("targets", targets, a);
    d["panels"].PushBack(panel, a);
  };
  add_panel(R"(sum by (node) (gpupool_gpu_made_up_ratio{pool="$pool"}))", "{{node}}");
  add_panel(R"(max by (rack) (gpupool_gpu_temperature_celsius{pool="$pool", rack="r1"}))", "{{rack}}");
  add_panel(R"(max_over_the_top(gpupool_gpu_power_watts{pool="$pool"}))", "");
  add_panel(R"(DCGM_FI_DEV_GPU_TEMP{Hostname="$node"} / gpupool_gpu_info)", "{{modelName}} {{rack}}");
  const auto found = problems(d, catalog);
  const std::vector<std::string> expected = {
      "panel 'Added' target A: unknown metric gpupool_gpu_made_up_ratio",
      "panel 'Added' target A: label node (by/on/...) is no label of the expression's metrics",
      "panel 'Added' target A: legend label node is no label of the expression's metrics",
      "panel 'Added' target A: label rack is not a label of gpupool_gpu_temperature_celsius",
      "panel 'Added' target A: label rack (by/on/...) is no label of the expression's metrics",
      "panel 'Added' target A: legend label rack is no label of the expression's metrics",
      "panel 'Added' target A: unknown function max_over_the_top()",
      "panel 'Added' target A: legend label rack is no label of the expression's metrics",
  };
  EXPECT_EQ(found, expected);
}

// promtool parses every query (as a recording rule, Grafana's variables
// replaced by values).
TEST(Dashboard, PromtoolParsesEveryQuery) {
  GPUPOOL_REQUIRE_PROMTOOL(promtool);
  const auto d = parse(dashboard_template());
  std::string rules;
  int n = 0;
  for (const auto& q : dashboard_queries(d)) {
    std::string expr = std::regex_replace(q.expr, std::regex(R"(\$__(rate_interval|interval|range))"), "5m");
    expr = std::regex_replace(expr, std::regex(R"(\$\{?[a-zA-Z_][a-zA-Z0-9_]*\}?)"), "x");
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.String(expr.c_str());
    rules += std::string(rules.empty() ? "" : ",") + R"({"record":"dashboard:query_)" + std::to_string(n++) +
             R"(","expr":)" + buf.GetString() + "}";
  }
  testing::TempDir dir;
  const auto file = dir.write("dashboard.json", R"({"groups":[{"name":"dashboard","rules":[)" + rules + "]}]}");
  const auto run = testing::run_promtool(promtool, {"check", "rules", file});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("SUCCESS: " + std::to_string(n) + " rules found"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace gpupool::monitoring
