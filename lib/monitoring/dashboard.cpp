#include "gpupool/monitoring/dashboard.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <stdexcept>

#include "json_text.h"

namespace gpupool::embedded {
std::string_view gpupool_dashboard_json();
}

namespace gpupool::monitoring {
namespace {

bool uid_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

void set_string(rapidjson::Value& object, const char* key, const std::string& value, rapidjson::Document::AllocatorType& a) {
  rapidjson::Value v(value.c_str(), static_cast<rapidjson::SizeType>(value.size()), a);
  if (object.HasMember(key)) {
    object[key] = v;
  } else {
    object.AddMember(rapidjson::Value(key, a), v, a);
  }
}

}  // namespace

std::string_view dashboard_template() { return embedded::gpupool_dashboard_json(); }

std::string dashboard_uid(const std::string& pool) {
  std::string uid = "gpupool-" + pool;
  bool ok = uid.size() <= 40;
  for (const char c : pool) ok = ok && uid_char(c);
  if (ok) return uid;
  uid = "gpupool-";
  for (const char c : pool) {
    if (uid.size() == 8 + 23) break;
    uid += uid_char(c) ? c : '-';
  }
  return uid + "-" + detail::hex8(detail::fnv1a(pool));
}

std::string dashboard_json(const std::string& pool) {
  const auto text = dashboard_template();
  rapidjson::Document d;
  d.Parse(text.data(), text.size());
  if (d.HasParseError() || !d.IsObject()) {
    throw std::runtime_error(std::string("lib/monitoring/data/gpupool-dashboard.json: ") +
                             rapidjson::GetParseError_En(d.GetParseError()) + " at offset " +
                             std::to_string(d.GetErrorOffset()));
  }
  auto& a = d.GetAllocator();
  set_string(d, "uid", dashboard_uid(pool), a);
  set_string(d, "title", "GPU pool " + pool, a);
  if (d.HasMember("templating") && d["templating"].IsObject() && d["templating"].HasMember("list") &&
      d["templating"]["list"].IsArray()) {
    for (auto& var : d["templating"]["list"].GetArray()) {
      if (!var.IsObject() || !var.HasMember("name") || !var["name"].IsString() || std::string(var["name"].GetString()) != "pool") {
        continue;
      }
      rapidjson::Value current(rapidjson::kObjectType);
      current.AddMember("selected", true, a);
      current.AddMember("text", rapidjson::Value(pool.c_str(), static_cast<rapidjson::SizeType>(pool.size()), a), a);
      current.AddMember("value", rapidjson::Value(pool.c_str(), static_cast<rapidjson::SizeType>(pool.size()), a), a);
      if (var.HasMember("current")) {
        var["current"] = current;
      } else {
        var.AddMember("current", current, a);
      }
    }
  }
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  d.Accept(w);
  return {buf.GetString(), buf.GetSize()};
}

std::string dashboard_configmap(const std::string& pool, const MonitoringOptions& options) {
  auto labels = object_labels(pool, options);
  labels["grafana_dashboard"] = "1";
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":)" + detail::quoted(dashboard_configmap_name(pool)) +
         R"(,"namespace":)" + detail::quoted(options.namespace_name) + R"(,"labels":)" + detail::string_map(labels) +
         R"(},"data":{)" + detail::quoted("gpupool-" + pool + ".json") + ":" + detail::quoted(dashboard_json(pool)) + "}}";
}

}  // namespace gpupool::monitoring
