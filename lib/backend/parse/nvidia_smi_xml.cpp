// nvidia-smi -q -x: the XML log (nvsmi_device_v10.dtd .. v13).
#include <tinyxml2.h>

#include <algorithm>
#include <map>

#include "gpupool/backend/nvidia_smi_parse.h"
#include "nvidia_smi_text.h"

namespace gpupool::backend::nvsmi {

namespace {

using tinyxml2::XMLElement;

std::string_view text_of(const XMLElement* e) {
  if (e == nullptr) return {};
  const char* t = e->GetText();
  return t == nullptr ? std::string_view() : text::trim(t);
}

// Reads one log, keeping the first error it meets.
class Reader {
 public:
  explicit Reader(const gpu::Catalog& catalog) : catalog_(catalog) {}

  std::optional<ParseError> error;
  QueryXml out;

  void read_log(const XMLElement* root) {
    const std::string path = "/nvidia_smi_log";
    out.inventory.driver_version = std::string(value(root, "driver_version"));
    out.inventory.cuda_version = std::string(value(root, "cuda_version"));
    int position = 0;
    for (const XMLElement* g = root->FirstChildElement("gpu"); g != nullptr && !error;
         g = g->NextSiblingElement("gpu")) {
      if (position >= kMaxGpus) return fail(path, "more than " + std::to_string(kMaxGpus) + " <gpu> elements");
      read_gpu(g, path + "/gpu[" + std::to_string(position + 1) + "]", position);
      ++position;
    }
  }

 private:
  const gpu::Catalog& catalog_;
  std::size_t rows_ = 0;

  void fail(const std::string& where, const std::string& message) {
    if (!error) error = ParseError{where, message};
  }

  bool count_row(const std::string& where) {
    if (++rows_ > kMaxRows) {
      fail(where, "more than " + std::to_string(kMaxRows) + " MIG devices and processes");
      return false;
    }
    return true;
  }

  // The trimmed text of parent/<name>; "" when absent or "N/A"-like.
  static std::string_view value(const XMLElement* parent, const char* name) {
    const std::string_view v = text_of(parent == nullptr ? nullptr : parent->FirstChildElement(name));
    return text::is_absent(v) ? std::string_view() : v;
  }

  // An integer (units stripped) in [min, max]; `fallback` when absent.
  std::int64_t int_value(const XMLElement* parent, const char* name, const std::string& parent_path,
                         std::int64_t fallback, std::int64_t min, std::int64_t max) {
    const std::string_view raw = value(parent, name);
    if (raw.empty()) return fallback;
    const auto v = text::to_int(text::strip_unit(raw), min, max);
    if (!v) {
      fail(parent_path + "/" + name, "not a number in [" + std::to_string(min) + ", " + std::to_string(max) +
                                         "]: " + text::quote(raw));
      return fallback;
    }
    return *v;
  }

  std::optional<MigMode> mig_value(const XMLElement* parent, const char* name, const std::string& parent_path) {
    const std::string_view raw = value(parent, name);
    if (raw.empty()) return std::nullopt;
    if (raw == "Enabled") return MigMode::enabled;
    if (raw == "Disabled") return MigMode::disabled;
    fail(parent_path + "/" + name, "MIG mode is neither Enabled nor Disabled: " + text::quote(raw));
    return std::nullopt;
  }

  void read_gpu(const XMLElement* g, const std::string& path, int index) {
    GpuInfo info;
    info.index = index;
    info.vendor = gpu::Vendor::nvidia;
    info.name = std::string(value(g, "product_name"));
    info.uuid = std::string(value(g, "uuid"));

    const XMLElement* pci = g->FirstChildElement("pci");
    info.pci_bus_id = std::string(value(pci, "pci_bus_id"));
    if (info.pci_bus_id.empty() && g->Attribute("id") != nullptr) info.pci_bus_id = std::string(text::trim(g->Attribute("id")));
    if (const std::string_view raw = value(pci, "pci_device_id"); !raw.empty()) {
      const auto id = text::to_hex(raw);
      if (!id || *id > 0xFFFFFFFFu) return fail(path + "/pci/pci_device_id", "not a PCI id: " + text::quote(raw));
      // "20B210DE": device 0x20B2, vendor 0x10DE.
      info.pci_device_id = static_cast<std::uint32_t>(*id > 0xFFFF ? *id >> 16 : *id);
    }

    info.memory_mib = int_value(g->FirstChildElement("fb_memory_usage"), "total", path + "/fb_memory_usage", 0, 0,
                                std::int64_t{1} << 40);

    if (const std::string_view cc = value(g, "compute_cap"); !cc.empty()) {
      const auto dot = cc.find('.');
      const auto major = text::to_int32(cc.substr(0, dot), 0, 100);
      const auto minor = dot == std::string_view::npos ? std::optional<int>(0) : text::to_int32(cc.substr(dot + 1), 0, 100);
      if (!major || !minor) return fail(path + "/compute_cap", "not a compute capability: " + text::quote(cc));
      info.compute_major = *major;
      info.compute_minor = *minor;
    }

    const XMLElement* mig_mode = g->FirstChildElement("mig_mode");
    const auto current = mig_value(mig_mode, "current_mig", path + "/mig_mode");
    const auto pending = mig_value(mig_mode, "pending_mig", path + "/mig_mode");
    if (error) return;

    // By name: a vGPU guest reports the board's PCI device id with a vGPU
    // name ("GRID A100-4C") and must not look like the MIG-capable board.
    const gpu::GpuModel* model = nullptr;
    if (!info.name.empty()) {
      model = catalog_.find(info.name);
    } else if (info.pci_device_id != 0) {
      model = catalog_.find_by_pci_device_id(gpu::Vendor::nvidia, info.pci_device_id);
    }
    if (model != nullptr) info.catalog_id = model->id;
    info.mig_capable = (model != nullptr && model->mig.has_value()) || current.has_value() || pending.has_value();
    if (info.mig_capable) {
      info.mig.current = current.value_or(MigMode::disabled);
      info.mig.pending = pending.value_or(info.mig.current);
    }

    read_mig_devices(g->FirstChildElement("mig_devices"), path + "/mig_devices", info);
    read_processes(g->FirstChildElement("processes"), path + "/processes", index);
    if (error) return;
    out.inventory.gpus.push_back(std::move(info));
  }

  void read_mig_devices(const XMLElement* devices, const std::string& path, GpuInfo& info) {
    if (devices == nullptr) return;
    std::map<int, int> lowest_ci;  // GI id -> lowest CI id
    int n = 0;
    for (const XMLElement* d = devices->FirstChildElement("mig_device"); d != nullptr && !error;
         d = d->NextSiblingElement("mig_device")) {
      const std::string dpath = path + "/mig_device[" + std::to_string(++n) + "]";
      if (!count_row(dpath)) return;
      XmlMigDevice dev;
      dev.gpu_index = info.index;
      dev.device_index = static_cast<int>(int_value(d, "index", dpath, n - 1, 0, 1 << 20));
      dev.gpu_instance_id = static_cast<int>(int_value(d, "gpu_instance_id", dpath, -1, 0, 1 << 20));
      dev.compute_instance_id = static_cast<int>(int_value(d, "compute_instance_id", dpath, -1, 0, 1 << 20));
      const XMLElement* fb = d->FirstChildElement("fb_memory_usage");
      dev.memory_mib = int_value(fb, "total", dpath + "/fb_memory_usage", 0, 0, std::int64_t{1} << 40);
      auto present = [&](const char* name) -> std::optional<std::int64_t> {
        if (value(fb, name).empty()) return std::nullopt;
        return int_value(fb, name, dpath + "/fb_memory_usage", 0, 0, std::int64_t{1} << 40);
      };
      dev.memory_used_mib = present("used");
      dev.memory_free_mib = present("free");
      if (error) return;
      if (dev.gpu_instance_id >= 0) {
        auto [it, inserted] = lowest_ci.emplace(dev.gpu_instance_id, dev.compute_instance_id);
        if (!inserted && dev.compute_instance_id >= 0 && (it->second < 0 || dev.compute_instance_id < it->second)) {
          it->second = dev.compute_instance_id;
        }
      }
      out.mig_devices.push_back(dev);
    }
    for (const auto& [gi, ci] : lowest_ci) {
      MigInstance instance;
      instance.gpu_instance_id = gi;
      instance.compute_instance_id = ci;
      info.instances.push_back(instance);
    }
  }

  void read_processes(const XMLElement* processes, const std::string& path, int gpu_index) {
    if (processes == nullptr) return;
    int n = 0;
    for (const XMLElement* p = processes->FirstChildElement("process_info"); p != nullptr && !error;
         p = p->NextSiblingElement("process_info")) {
      const std::string ppath = path + "/process_info[" + std::to_string(++n) + "]";
      if (!count_row(ppath)) return;
      GpuProcess proc;
      proc.gpu_index = gpu_index;
      proc.gpu_instance_id = static_cast<int>(int_value(p, "gpu_instance_id", ppath, -1, 0, 1 << 20));
      proc.pid = static_cast<std::uint32_t>(int_value(p, "pid", ppath, 0, 0, 0xFFFFFFFFLL));
      proc.used_memory_mib = int_value(p, "used_memory", ppath, 0, 0, std::int64_t{1} << 40);
      if (error) return;
      out.processes.push_back(proc);
    }
  }
};

std::size_t count_newlines(std::string_view s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

ParseResult<QueryXml> parse_query_xml(std::string_view input, const gpu::Catalog& catalog) {
  if (input.size() > kMaxInputBytes) {
    return ParseError{"input", "larger than " + std::to_string(kMaxInputBytes) + " bytes"};
  }
  // nvidia-smi may print warnings on stdout before the XML.
  std::size_t start = input.find("<?xml");
  if (start == std::string_view::npos) start = input.find("<nvidia_smi_log");
  if (start == std::string_view::npos) {
    return ParseError{"/", "no <nvidia_smi_log> element (not nvidia-smi -q -x output?)"};
  }
  const std::size_t skipped_lines = count_newlines(input.substr(0, start));
  tinyxml2::XMLDocument doc;
  if (doc.Parse(input.data() + start, input.size() - start) != tinyxml2::XML_SUCCESS) {
    const char* str = doc.ErrorStr();
    const int line = doc.ErrorLineNum();
    return ParseError{text::line_where(skipped_lines + static_cast<std::size_t>(line > 0 ? line : 1)),
                      std::string("not well-formed XML: ") + (str == nullptr ? "unknown error" : str)};
  }
  const XMLElement* root = doc.RootElement();
  if (root == nullptr || std::string_view(root->Name()) != "nvidia_smi_log") {
    return ParseError{"/", "root element is " + text::quote(root == nullptr ? "" : root->Name()) +
                               ", not <nvidia_smi_log>"};
  }
  Reader reader(catalog);
  reader.read_log(root);
  if (reader.error) return *reader.error;
  return std::move(reader.out);
}

}  // namespace gpupool::backend::nvsmi
