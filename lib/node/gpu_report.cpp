#include "gpupool/node/gpu_report.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <functional>
#include <thread>

#include "gpupool/api/codec.h"
#include "gpupool/exporter/gpu_families.h"
#include "gpupool/metrics/exposition.h"
#include "gpupool/node/node_labels.h"
#include "gpupool/node/observed_status.h"

namespace gpupool::node {
namespace {

// The status part of the GPUNode the agent would write, indented.
std::string status_json(const std::string& node_name, const backend::Inventory& inventory) {
  api::GPUNode gn;
  gn.metadata.name = node_name;
  gn.status.emplace();
  fill_observed(*gn.status, inventory);
  rapidjson::Document doc;
  rapidjson::Value whole = api::encode(gn, doc.GetAllocator());
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buf);
  writer.SetIndent(' ', 2);
  auto it = whole.FindMember("status");
  if (it == whole.MemberEnd()) return "{}\n";
  it->value.Accept(writer);
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

class Sections {
 public:
  explicit Sections(GpuReport& report) : report_(report) {}

  // Runs `body`, which appends to the text; a BackendError is written in
  // place of the section's content and counted.
  bool section(const std::string& title, const std::function<void(std::string&)>& body) {
    report_.text += "# " + title + "\n";
    try {
      body(report_.text);
      return true;
    } catch (const backend::BackendError& e) {
      report_.text += "error: " + e.code() + ": " + e.what() + "\n";
      ++report_.failed_calls;
      return false;
    }
  }

 private:
  GpuReport& report_;
};

}  // namespace

GpuReport gpu_report(backend::GpuBackend& backend, const GpuReportOptions& options) {
  GpuReport report;
  Sections s(report);
  backend::Inventory inventory;
  report.inventory_read = s.section("GPUNode status (what the agent reports of the hardware)", [&](std::string& out) {
    inventory = backend.inventory();
    out += status_json(options.node_name, inventory);
  });
  if (report.inventory_read) {
    LabelInputs in;
    in.inventory = &inventory;
    in.catalog = options.catalog;
    s.section("Node labels (MIG strategy mixed, no sharing)", [&](std::string& out) {
      for (const auto& [key, value] : node_labels(in)) out += key + "=" + value + "\n";
    });
    s.section("Extended resources (the device plugin's)", [&](std::string& out) {
      for (const auto& [name, count] : extended_resources(in)) out += name + "=" + std::to_string(count) + "\n";
    });
  }
  s.section("Processes", [&](std::string& out) {
    const auto processes = backend.processes();
    if (processes.empty()) out += "none\n";
    for (const auto& p : processes) {
      out += "gpu " + std::to_string(p.gpu_index) +
             (p.gpu_instance_id >= 0 ? " instance " + std::to_string(p.gpu_instance_id) : std::string()) + " pid " +
             std::to_string(p.pid) + " " + std::to_string(p.used_memory_mib) + " MiB\n";
    }
  });
  s.section("XID events", [&](std::string& out) {
    const auto events = backend.wait_xid_events(options.xid_wait);
    if (events.empty()) out += "none\n";
    for (const auto& e : events) out += "gpu " + std::to_string(e.gpu_index) + " xid " + std::to_string(e.xid) + "\n";
  });
  s.section("Metrics (what the agent's /metrics would serve, no pods attributed)", [&](std::string& out) {
    exporter::GpuSample sample;
    sample.hostname = options.node_name;
    sample.inventory = inventory;
    backend.metrics();  // the first reading of rates that need two
    if (options.metrics_gap.count() > 0) std::this_thread::sleep_for(options.metrics_gap);
    sample.metrics = backend.metrics();
    out += metrics::render_text(exporter::gpu_families(sample));
  });
  return report;
}

}  // namespace gpupool::node
