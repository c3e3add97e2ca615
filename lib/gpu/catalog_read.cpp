// Catalog YAML -> GpuModel values: every field's shape and notation.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>

#include "catalog_internal.h"
#include "gpupool/gpu/mig_profile_name.h"
#include "placement_notation.h"
#include "text.h"
#include "yaml_util.h"

namespace gpupool::gpu::detail {

void catalog_fail(std::string_view origin, const std::string& where, const std::string& reason) {
  throw CatalogError("gpu catalog " + std::string(origin) + ": " + (where.empty() ? "top level" : where) + ": " + reason);
}

namespace {

// Reads one map, remembering where it is: `prefix` names the model
// ("model a100-sxm4-40gb: "), `path` the map inside it ("mig.profiles[1g.10gb]").
class MapReader {
 public:
  MapReader(std::string_view origin, std::string prefix, std::string path, const YAML::Node& node,
            const std::set<std::string>& known)
      : origin_(origin), prefix_(std::move(prefix)), path_(std::move(path)), node_(node) {
    if (!node.IsMap()) catalog_fail(origin_, prefix_ + path_, "expected a map, got " + yaml::describe(node));
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      if (known.count(key) == 0) {
        fail(key, "unknown field (known: " + text::join({known.begin(), known.end()}, ", ") + ")");
      }
    }
  }

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    catalog_fail(origin_, prefix_ + (path_.empty() ? field : path_ + "." + field), reason);
  }

  bool has(const char* key) const { return node_[key].IsDefined(); }

  YAML::Node required(const char* key) const {
    const YAML::Node v = node_[key];
    if (!v.IsDefined()) fail(key, "required field is missing");
    return v;
  }

  std::string string(const char* key) const {
    const YAML::Node v = required(key);
    if (!v.IsScalar() || v.Scalar().empty()) fail(key, "expected a non-empty string, got " + yaml::describe(v));
    return v.Scalar();
  }

  std::vector<std::string> strings(const char* key) const {
    const YAML::Node v = required(key);
    if (!v.IsSequence()) fail(key, "expected a list of strings, got " + yaml::describe(v));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].IsScalar() || v[i].Scalar().empty()) {
        fail(std::string(key) + "[" + std::to_string(i) + "]", "expected a non-empty string, got " + yaml::describe(v[i]));
      }
      out.push_back(v[i].Scalar());
    }
    return out;
  }

  std::int64_t integer(const char* key) const {
    const YAML::Node v = required(key);
    const auto n = yaml::is_plain_scalar(v) ? text::parse_non_negative(v.Scalar()) : std::nullopt;
    if (!n) fail(key, "expected a non-negative integer, got " + yaml::describe(v));
    return *n;
  }

 private:
  std::string_view origin_;
  std::string prefix_;
  std::string path_;
  YAML::Node node_;
};

std::vector<std::uint32_t> read_pci_ids(const MapReader& m) {
  std::vector<std::uint32_t> out;
  const std::vector<std::string> ids = m.strings("pciDeviceIds");
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto id = text::parse_hex(ids[i], 4);
    if (!id) m.fail("pciDeviceIds[" + std::to_string(i) + "]", "expected a 16-bit hex id like \"0x20B0\", got \"" + ids[i] + "\"");
    out.push_back(*id);
  }
  return out;
}

MigProfile read_profile(std::string_view origin, const std::string& prefix, std::size_t index, const YAML::Node& node) {
  // Named by its name when it has one, else by its index.
  const YAML::Node name = node.IsMap() ? node["name"] : YAML::Node();
  const bool named = name.IsDefined() && name.IsScalar() && !name.Scalar().empty();
  MapReader m(origin, prefix, "mig.profiles[" + (named ? name.Scalar() : std::to_string(index)) + "]", node,
              {"name", "id", "computeSlices", "memorySlices", "memoryMiB", "maxCount", "placements"});
  MigProfile p;
  p.name = m.string("name");
  p.profile_id = static_cast<int>(m.integer("id"));
  p.compute_slices = static_cast<int>(m.integer("computeSlices"));
  p.memory_slices = static_cast<int>(m.integer("memorySlices"));
  p.memory_mib = static_cast<int>(m.integer("memoryMiB"));
  p.max_count = static_cast<int>(m.integer("maxCount"));
  const auto placements = parse_placements(m.string("placements"));
  if (const auto* why = std::get_if<std::string>(&placements)) m.fail("placements", *why);
  p.placements = std::get<std::vector<MigPlacement>>(placements);
  // A name that does not parse is reported by the catalog's validation.
  const auto parsed = parse_mig_profile_name(p.name);
  if (const auto* read = std::get_if<MigProfileName>(&parsed)) {
    const auto& a = read->attributes;
    p.media_extensions = std::find(a.begin(), a.end(), "me") != a.end() || std::find(a.begin(), a.end(), "me.all") != a.end();
  }
  return p;
}

MigCapability read_mig(std::string_view origin, const std::string& prefix, const YAML::Node& node) {
  MapReader m(origin, prefix, "mig", node, {"computeSlices", "memorySlices", "profiles"});
  MigCapability mig;
  mig.compute_slices = static_cast<int>(m.integer("computeSlices"));
  mig.memory_slices = static_cast<int>(m.integer("memorySlices"));
  const YAML::Node profiles = m.required("profiles");
  if (!profiles.IsSequence() || profiles.size() == 0) {
    m.fail("profiles", "expected a non-empty list of profiles, got " + yaml::describe(profiles));
  }
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    mig.profiles.push_back(read_profile(origin, prefix, i, profiles[i]));
  }
  return mig;
}

AmdPartitionModes read_amd(std::string_view origin, const std::string& prefix, const YAML::Node& node) {
  MapReader m(origin, prefix, "amdPartitions", node, {"compute", "memory", "combinations"});
  AmdPartitionModes amd;
  amd.compute = m.strings("compute");
  amd.memory = m.strings("memory");
  if (!m.has("combinations")) return amd;
  const YAML::Node combos = m.required("combinations");
  if (!combos.IsSequence()) m.fail("combinations", "expected a list of [compute, memory] pairs, got " + yaml::describe(combos));
  for (std::size_t i = 0; i < combos.size(); ++i) {
    const YAML::Node pair = combos[i];
    if (!pair.IsSequence() || pair.size() != 2 || !pair[0].IsScalar() || !pair[1].IsScalar()) {
      m.fail("combinations[" + std::to_string(i) + "]", "expected a [compute, memory] pair, got " + yaml::describe(pair));
    }
    amd.combinations.emplace_back(pair[0].Scalar(), pair[1].Scalar());
  }
  return amd;
}

GpuModel read_model(std::string_view origin, std::size_t index, const YAML::Node& node) {
  // Named by its id when it has one, else by its index.
  const YAML::Node id = node.IsMap() ? node["id"] : YAML::Node();
  const bool named = id.IsDefined() && id.IsScalar() && !id.Scalar().empty();
  MapReader m(origin, named ? "model " + id.Scalar() + ": " : "models[" + std::to_string(index) + "]: ", "", node,
              {"id", "vendor", "displayName", "names", "pciDeviceIds", "memoryMiB", "architecture", "mig",
               "amdPartitions", "sources"});
  GpuModel model;
  model.id = m.string("id");
  const std::string prefix = "model " + model.id + ": ";
  const std::string vendor = m.string("vendor");
  if (vendor == "nvidia") {
    model.vendor = Vendor::nvidia;
  } else if (vendor == "amd") {
    model.vendor = Vendor::amd;
  } else {
    m.fail("vendor", "expected nvidia or amd, got \"" + vendor + "\"");
  }
  model.display_name = m.string("displayName");
  model.names = m.strings("names");
  model.pci_device_ids = read_pci_ids(m);
  model.memory_mib = m.integer("memoryMiB");
  model.architecture = m.string("architecture");
  if (m.has("mig")) model.mig = read_mig(origin, prefix, m.required("mig"));
  if (m.has("amdPartitions")) model.amd_partitions = read_amd(origin, prefix, m.required("amdPartitions"));
  model.sources = m.strings("sources");
  return model;
}

}  // namespace

std::vector<GpuModel> read_catalog_models(std::string_view yaml_text, std::string_view origin) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    catalog_fail(origin, "YAML", e.what());
  }
  MapReader top(origin, "", "", root, {"models"});
  const YAML::Node models = top.required("models");
  if (!models.IsSequence() || models.size() == 0) {
    catalog_fail(origin, "models", "expected a non-empty list of models, got " + yaml::describe(models));
  }
  std::vector<GpuModel> out;
  for (std::size_t i = 0; i < models.size(); ++i) out.push_back(read_model(origin, i, models[i]));
  return out;
}

}  // namespace gpupool::gpu::detail
