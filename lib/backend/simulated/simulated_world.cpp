#include "simulated_world.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace gpupool::backend::sim {
namespace {

[[noreturn]] void bad_config(const std::string& path, const std::string& what) {
  throw BackendError("invalid-config", "simulated GPUs " + path + ": " + what);
}

template <class T>
T scalar(const YAML::Node& n, const std::string& path, const std::string& field) {
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    bad_config(path, field + ": not a valid value");
  }
}

}  // namespace

World read_world(const std::string& path, const gpu::Catalog& catalog) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    bad_config(path, e.what());
  }
  World w;
  if (!root || root.IsNull()) return w;
  if (!root.IsMap()) bad_config(path, "expected a map at the top");
  for (const auto& kv : root) {
    const auto key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    if (key == "driverVersion") {
      w.driver_version = scalar<std::string>(v, path, key);
    } else if (key == "cudaVersion") {
      w.cuda_version = scalar<std::string>(v, path, key);
    } else if (key == "gpus") {
      if (!v.IsSequence()) bad_config(path, "gpus: expected a list");
      for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string at = "gpus[" + std::to_string(i) + "]";
        if (!v[i].IsMap() || !v[i]["model"]) bad_config(path, at + ": expected {model: <catalog id>, count: N}");
        SimulatedGpuGroup g{scalar<std::string>(v[i]["model"], path, at + ".model"),
                            v[i]["count"] ? scalar<int>(v[i]["count"], path, at + ".count") : 1};
        if (catalog.find(g.model) == nullptr) bad_config(path, at + ".model: unknown GPU model \"" + g.model + "\"");
        if (g.count < 0 || g.count > 16) bad_config(path, at + ".count: must be 0..16");
        w.gpus.push_back(g);
      }
    } else if (key == "install") {
      if (!v.IsMap()) bad_config(path, "install: expected a map");
      if (v["seconds"]) w.install_seconds = scalar<double>(v["seconds"], path, "install.seconds");
      if (v["fail"]) w.install_fail = scalar<std::string>(v["fail"], path, "install.fail");
      if (w.install_seconds < 0 || w.install_seconds > 3600) bad_config(path, "install.seconds: must be 0..3600");
    } else if (key == "migOperationSeconds") {
      w.mig_operation_seconds = scalar<double>(v, path, key);
      if (w.mig_operation_seconds < 0 || w.mig_operation_seconds > 600) bad_config(path, "migOperationSeconds: must be 0..600");
    } else if (key == "resetRefused") {
      if (!v.IsSequence()) bad_config(path, "resetRefused: expected a list of GPU indexes");
      for (const auto& i : v) w.reset_refused.insert(scalar<int>(i, path, key));
    } else if (key == "xids") {
      if (!v.IsSequence()) bad_config(path, "xids: expected a list of {gpu, xid}");
      for (const auto& e : v) {
        w.xids.push_back({scalar<int>(e["gpu"], path, "xids.gpu"), scalar<int>(e["xid"], path, "xids.xid"), 0});
      }
    } else if (key == "temperatureCelsius" || key == "eccUncorrected" || key == "eccCorrected") {
      if (!v.IsMap()) bad_config(path, key + ": expected a map of GPU index to value");
      for (const auto& e : v) {
        const int gpu = scalar<int>(e.first, path, key);
        if (key == "temperatureCelsius") {
          w.temperature_celsius[gpu] = scalar<double>(e.second, path, key);
        } else if (key == "eccUncorrected") {
          w.ecc_uncorrected[gpu] = scalar<std::int64_t>(e.second, path, key);
        } else {
          w.ecc_corrected[gpu] = scalar<std::int64_t>(e.second, path, key);
        }
      }
    } else if (key == "telemetry") {
      w.telemetry = read_telemetry(v, path);
    } else {
      bad_config(path, "unknown field \"" + key + "\"");
    }
  }
  return w;
}

HardwareState load_state(const std::string& path) {
  HardwareState s;
  std::ifstream in(path);
  if (!in) return s;
  std::stringstream buf;
  buf << in.rdbuf();
  rapidjson::Document d;
  d.Parse(buf.str().c_str());
  auto bad = [&](const std::string& what) -> void {
    throw BackendError("invalid-state", "simulated GPU state " + path + ": " + what);
  };
  if (d.HasParseError() || !d.IsObject()) bad("not a JSON object");
  try {
    if (d.HasMember("driverVersion")) s.driver_version = d["driverVersion"].GetString();
    if (d.HasMember("gpus")) {
      for (const auto& g : d["gpus"].GetObject()) {
        GpuState gs;
        const auto& o = g.value;
        gs.mig.current = std::string(o["migCurrent"].GetString()) == "Enabled" ? MigMode::enabled : MigMode::disabled;
        gs.mig.pending = std::string(o["migPending"].GetString()) == "Enabled" ? MigMode::enabled : MigMode::disabled;
        gs.compute_partition = o["computePartition"].GetString();
        gs.memory_partition = o["memoryPartition"].GetString();
        gs.next_gpu_instance_id = o["nextGpuInstanceID"].GetInt();
        for (const auto& i : o["instances"].GetArray()) {
          MigInstance mi;
          mi.profile = i["profile"].GetString();
          mi.profile_id = i["profileID"].GetInt();
          mi.placement_start = i["start"].GetInt();
          mi.placement_size = i["size"].GetInt();
          mi.gpu_instance_id = i["gi"].GetInt();
          mi.compute_instance_id = i["ci"].GetInt();
          mi.uuid = i["uuid"].GetString();
          gs.instances.push_back(mi);
        }
        s.by_uuid[g.name.GetString()] = gs;
      }
    }
  } catch (const std::exception& e) {
    bad(std::string("malformed: ") + e.what());
  }
  return s;
}

void save_state(const std::string& path, const HardwareState& s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("driverVersion");
  w.String(s.driver_version.c_str());
  w.Key("gpus");
  w.StartObject();
  for (const auto& [uuid, g] : s.by_uuid) {
    w.Key(uuid.c_str());
    w.StartObject();
    w.Key("migCurrent");
    w.String(g.mig.current == MigMode::enabled ? "Enabled" : "Disabled");
    w.Key("migPending");
    w.String(g.mig.pending == MigMode::enabled ? "Enabled" : "Disabled");
    w.Key("computePartition");
    w.String(g.compute_partition.c_str());
    w.Key("memoryPartition");
    w.String(g.memory_partition.c_str());
    w.Key("nextGpuInstanceID");
    w.Int(g.next_gpu_instance_id);
    w.Key("instances");
    w.StartArray();
    for (const auto& i : g.instances) {
      w.StartObject();
      w.Key("profile");
      w.String(i.profile.c_str());
      w.Key("profileID");
      w.Int(i.profile_id);
      w.Key("start");
      w.Int(i.placement_start);
      w.Key("size");
      w.Int(i.placement_size);
      w.Key("gi");
      w.Int(i.gpu_instance_id);
      w.Key("ci");
      w.Int(i.compute_instance_id);
      w.Key("uuid");
      w.String(i.uuid.c_str());
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << buf.GetString();
    out.flush();
    if (!out) throw BackendError("io", "cannot write simulated GPU state " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    throw BackendError("io", "cannot replace simulated GPU state " + path);
  }
}

std::string simulated_uuid(const std::string& prefix, const std::string& node, int index, int sub) {
  auto fnv = [](const std::string& s, std::uint64_t seed) {
    std::uint64_t h = 1469598103934665603ULL ^ seed;
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ULL;
    }
    return h;
  };
  const std::string key = node + "/" + std::to_string(index) + "/" + std::to_string(sub);
  const std::uint64_t a = fnv(key, 1), b = fnv(key, 2);
  char out[64];
  std::snprintf(out, sizeof out, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xffff),
                static_cast<unsigned>(b >> 48), static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return prefix + out;
}

}  // namespace gpupool::backend::sim
