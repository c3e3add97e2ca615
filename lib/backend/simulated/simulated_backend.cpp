#include "gpupool/backend/simulated_backend.h"

#include <sys/stat.h>

#include <algorithm>
#include <condition_variable>
#include <thread>

#include "gpupool/gpu/mig_planner.h"
#include "simulated_world.h"

namespace gpupool::backend {
namespace {

std::uint64_t hash_text(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

struct Board {
  int index = 0;
  std::string uuid;
  const gpu::GpuModel* model = nullptr;
};

}  // namespace

std::vector<SimulatedGpuGroup> parse_simulated_gpus(const std::string& text, const gpu::Catalog& catalog) {
  std::vector<SimulatedGpuGroup> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? text.size() + 1 : comma + 1;
    if (item.empty()) {
      if (text.empty()) break;
      throw BackendError("invalid-argument", "--simulated-gpus: empty item in \"" + text + "\"");
    }
    const std::size_t eq = item.find('=');
    SimulatedGpuGroup g{item.substr(0, eq), 1};
    if (eq != std::string::npos) {
      const std::string n = item.substr(eq + 1);
      if (n.empty() || n.size() > 2 || !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        throw BackendError("invalid-argument", "--simulated-gpus: \"" + item + "\": the count must be 0..16");
      }
      g.count = std::stoi(n);
    }
    const gpu::GpuModel* m = catalog.find(g.model);
    if (m == nullptr) {
      throw BackendError("invalid-argument", "--simulated-gpus: \"" + item + "\": unknown GPU model \"" + g.model +
                                                 "\" (a catalog id such as a100-sxm4-80gb)");
    }
    if (g.count > 16) throw BackendError("invalid-argument", "--simulated-gpus: \"" + item + "\": at most 16 GPUs");
    g.model = m->id;
    out.push_back(g);
  }
  return out;
}

struct SimulatedBackend::Impl {
  SimulatedOptions options;
  const gpu::Catalog* catalog = nullptr;
  std::mutex mu;
  sim::World world;
  timespec world_mtime{};
  bool world_loaded = false;
  sim::HardwareState state;
  std::vector<SimulatedPod> pods;
  std::size_t xids_delivered = 0;

  void refresh_world() {
    if (options.config_path.empty()) {
      if (!world_loaded) {
        world.gpus = options.gpus;
        world_loaded = true;
      }
      return;
    }
    struct stat st {};
    if (::stat(options.config_path.c_str(), &st) != 0) {
      throw BackendError("invalid-config", "simulated GPUs " + options.config_path + ": cannot read the file");
    }
    if (world_loaded && st.st_mtim.tv_sec == world_mtime.tv_sec && st.st_mtim.tv_nsec == world_mtime.tv_nsec) return;
    sim::World w = sim::read_world(options.config_path, *catalog);
    if (w.gpus.empty()) w.gpus = options.gpus;
    if (w.xids.size() < xids_delivered) xids_delivered = 0;  // the file was rewritten with fewer
    world = std::move(w);
    world_mtime = st.st_mtim;
    world_loaded = true;
  }

  std::vector<Board> boards() const {
    std::vector<Board> out;
    for (const auto& g : world.gpus) {
      for (int i = 0; i < g.count; ++i) {
        Board b;
        b.index = static_cast<int>(out.size());
        b.uuid = sim::simulated_uuid("GPU-", options.node_name, b.index);
        b.model = catalog->find(g.model);
        out.push_back(b);
      }
    }
    return out;
  }

  Board board(int index) const {
    auto all = boards();
    if (index < 0 || index >= static_cast<int>(all.size())) {
      throw BackendError("NVML_ERROR_INVALID_ARGUMENT", "GPU " + std::to_string(index) + " does not exist (the node has " +
                                                            std::to_string(all.size()) + ")");
    }
    return all[static_cast<std::size_t>(index)];
  }

  std::string driver_version() const {
    if (!state.driver_version.empty()) return state.driver_version;
    return world.driver_version.empty() ? options.driver_version : world.driver_version;
  }

  // A MIG operation takes as long as the world says (a real one takes about a second).
  void take_time() const {
    if (world.mig_operation_seconds > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double>(world.mig_operation_seconds));
    }
  }

  void save() {
    if (!options.state_path.empty()) sim::save_state(options.state_path, state);
  }

  bool gpu_busy(int index) const {
    const int n = static_cast<int>(boards().size());
    for (const auto& p : pods) {
      if (n > 0 && static_cast<int>(hash_text(p.uid) % static_cast<std::uint64_t>(n)) == index) return true;
    }
    return false;
  }

  static const gpu::MigProfile& mig_profile(const Board& b, const std::string& profile) {
    if (b.model == nullptr || !b.model->mig) {
      throw BackendError("NVML_ERROR_NOT_SUPPORTED", "GPU " + std::to_string(b.index) + " does not support MIG");
    }
    const gpu::MigProfile* p = b.model->mig->profile(profile);
    if (p == nullptr) {
      throw BackendError("NVML_ERROR_NOT_SUPPORTED", "GPU " + std::to_string(b.index) + " (" + b.model->display_name +
                                                         ") has no MIG profile " + profile);
    }
    return *p;
  }
};

SimulatedBackend::SimulatedBackend(SimulatedOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->catalog = options.catalog != nullptr ? options.catalog : &gpu::Catalog::builtin();
  impl_->options = std::move(options);
  if (!impl_->options.state_path.empty()) impl_->state = sim::load_state(impl_->options.state_path);
  impl_->refresh_world();
}

SimulatedBackend::~SimulatedBackend() = default;

Inventory SimulatedBackend::inventory() {
  std::lock_guard lock(impl_->mu);
  impl_->refresh_world();
  Inventory inv;
  inv.driver_version = impl_->driver_version();
  const auto boards = impl_->boards();
  bool any_nvidia = false;
  for (const auto& b : boards) {
    GpuInfo g;
    g.index = b.index;
    g.uuid = b.uuid;
    g.name = b.model->display_name;
    g.catalog_id = b.model->id;
    g.vendor = b.model->vendor;
    g.pci_device_id = b.model->pci_device_ids.empty() ? 0 : b.model->pci_device_ids.front();
    char bus[32];
    std::snprintf(bus, sizeof bus, "00000000:%02X:00.0", 0x10 + b.index * 0x10 % 0xF0);
    g.pci_bus_id = bus;
    g.memory_mib = b.model->memory_mib;
    any_nvidia = any_nvidia || g.vendor == gpu::Vendor::nvidia;
    if (b.model->architecture == "Ampere") g.compute_major = 8, g.compute_minor = b.model->id.rfind("a100", 0) == 0 ? 0 : 6;
    if (b.model->architecture == "Hopper") g.compute_major = 9, g.compute_minor = 0;
    if (b.model->architecture == "Blackwell") g.compute_major = 10, g.compute_minor = 0;
    if (b.model->architecture == "Volta") g.compute_major = 7, g.compute_minor = 0;
    if (b.model->architecture == "Turing") g.compute_major = 7, g.compute_minor = 5;
    if (b.model->architecture == "Ada Lovelace") g.compute_major = 8, g.compute_minor = 9;
    g.mig_capable = b.model->mig.has_value();
    const sim::GpuState& st = impl_->state.by_uuid[b.uuid];
    if (g.mig_capable) {
      g.mig = st.mig;
      if (st.mig.current == MigMode::enabled) g.instances = st.instances;
      for (auto& inst : g.instances) {  // a simulated GPU reports its catalog's sizes
        if (const auto* p = b.model->mig->profile(inst.profile)) inst.memory_mib = p->memory_mib;
      }
    }
    if (b.model->amd_partitions) {
      g.compute_partition = st.compute_partition.empty() ? b.model->amd_partitions->compute.front()
                                                          : st.compute_partition;
      g.memory_partition = st.memory_partition.empty() ? b.model->amd_partitions->memory.front()
                                                       : st.memory_partition;
    }
    inv.gpus.push_back(std::move(g));
  }
  if (any_nvidia) inv.cuda_version = impl_->world.cuda_version;
  // SXM boards talk over NVLink (12 links on A100, 18 on Hopper and later),
  // AMD Instinct over xGMI; PCIe boards over one switch per pair of slots.
  for (std::size_t a = 0; a < boards.size(); ++a) {
    for (std::size_t c = a + 1; c < boards.size(); ++c) {
      const auto* ma = boards[a].model;
      const auto* mc = boards[c].model;
      GpuLink l;
      l.gpu_a = static_cast<int>(a);
      l.gpu_b = static_cast<int>(c);
      const bool sxm = ma == mc && (ma->id.find("sxm") != std::string::npos || ma->id.rfind("gh200", 0) == 0 ||
                                    ma->id.rfind("b200", 0) == 0 || ma->id.rfind("h200", 0) == 0);
      if (ma == mc && ma->vendor == gpu::Vendor::amd) {
        l.kind = LinkKind::xgmi;
        l.nvlinks = 1;
      } else if (sxm) {
        l.kind = LinkKind::nvlink;
        l.nvlinks = ma->architecture == "Ampere" ? 12 : 18;
      } else if (a / 2 == c / 2) {
        l.kind = LinkKind::pcie_same_switch;
      } else if (a / 4 == c / 4) {
        l.kind = LinkKind::same_numa;
      } else {
        l.kind = LinkKind::cross_numa;
      }
      inv.links.push_back(l);
    }
  }
  return inv;
}

std::vector<GpuMetrics> SimulatedBackend::metrics() {
  std::lock_guard lock(impl_->mu);
  impl_->refresh_world();
  std::vector<GpuMetrics> out;
  static const sim::GpuState kUntouched;  // a GPU the backend has not changed yet
  for (const auto& b : impl_->boards()) {
    const auto state = impl_->state.by_uuid.find(b.uuid);
    out.push_back(sim::simulated_metrics(impl_->world, b.index, *b.model, impl_->gpu_busy(b.index),
                                         state != impl_->state.by_uuid.end() ? state->second : kUntouched));
  }
  return out;
}

std::vector<GpuProcess> SimulatedBackend::processes() {
  std::lock_guard lock(impl_->mu);
  impl_->refresh_world();
  std::vector<GpuProcess> out;
  const auto n = static_cast<std::uint64_t>(impl_->boards().size());
  if (n == 0) return out;
  std::uint32_t pid = 1000;
  for (const auto& p : impl_->pods) {
    GpuProcess proc;
    proc.gpu_index = static_cast<int>(hash_text(p.uid) % n);
    proc.pid = pid++;
    proc.used_memory_mib = 1024;
    proc.pod_uid = p.uid;
    out.push_back(proc);
  }
  return out;
}

std::vector<XidEvent> SimulatedBackend::wait_xid_events(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    {
      std::lock_guard lock(impl_->mu);
      impl_->refresh_world();
      if (impl_->xids_delivered < impl_->world.xids.size()) {
        std::vector<XidEvent> out(impl_->world.xids.begin() + static_cast<std::ptrdiff_t>(impl_->xids_delivered),
                                  impl_->world.xids.end());
        impl_->xids_delivered = impl_->world.xids.size();
        const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch()).count();
        for (auto& e : out) e.time_unix_ms = now;
        return out;
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return {};
    // The world file is polled, like a driver's event queue would be read.
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(deadline - now, std::chrono::milliseconds(200)));
  }
}

MigModeChange SimulatedBackend::set_mig_mode(int gpu_index, bool enabled) {
  std::lock_guard lock(impl_->mu);
  impl_->refresh_world();
  const Board b = impl_->board(gpu_index);
  if (b.model == nullptr || !b.model->mig) {
    throw BackendError("NVML_ERROR_NOT_SUPPORTED", "GPU " + std::to_string(gpu_index) + " (" +
                                                       (b.model ? b.model->display_name : std::string("?")) +
                                                       ") does not support MIG");
  }
  sim::GpuState& st = impl_->state.by_uuid[b.uuid];
  const MigMode wanted = enabled ? MigMode::enabled : MigMode::disabled;
  if (!enabled && st.mig.current == MigMode::enabled && !st.instances.empty()) {
    throw BackendError("NVML_ERROR_IN_USE", "GPU " + std::to_string(gpu_index) +
                                                " still has GPU instances; destroy them before disabling MIG");
  }
  st.mig.pending = wanted;
  MigModeChange result = MigModeChange::applied;
  if (st.mig.current != wanted) {
    // Changing the mode resets the GPU, which the driver refuses while a
    // process holds it: the new mode then waits, pending.
    if (impl_->gpu_busy(gpu_index) || impl_->world.reset_refused.count(gpu_index) > 0) {
      result = MigModeChange::reset_required;
    } else {
      st.mig.current = wanted;
      if (!enabled) st.instances.clear();
    }
  }
  impl_->save();
  return result;
}

MigInstance SimulatedBackend::create_mig_instance(int gpu_index, const std::string& profile, int placement_start) {
  std::lock_guard lock(impl_->mu);
  impl_->refresh_world();
  impl_->take_time();
  const Board b = impl_->board(gpu_index);
  const gpu::MigProfile& p = Impl::mig_profile(b, profile);
  sim::GpuState& st = impl_->state.by_uuid[b.uuid];
  if (st.mig.current != MigMode::enabled) {
    throw BackendError("NVML_ERROR_NOT_SUPPORTED", "GPU " + std::to_string(gpu_index) + " is not in MIG mode");
  }
  const bool allowed = std::any_of(p.placements.begin(), p.placements.end(),
                                   [&](const gpu::MigPlacement& pl) { return pl.start == placement_start; });
  if (!allowed) {
    throw BackendError("NVML_ERROR_INVALID_ARGUMENT", profile + " cannot start at memory slice " +
                                                          std::to_string(placement_start) + " on GPU " +
                                                          std::to_string(gpu_index));
  }
  gpu::Layout layout;
  for (const auto& i : st.instances) layout.push_back({i.profile, i.placement_start, i.placement_size});
  layout.push_back({profile, placement_start, p.memory_slices});
  std::sort(layout.begin(), layout.end(), [](const auto& x, const auto& y) { return x.start < y.start; });
  if (auto r = gpu::check_layout(*b.model, layout); std::holds_alternative<gpu::PlanError>(r)) {
    throw BackendError("NVML_ERROR_INSUFFICIENT_RESOURCES",
                       "GPU " + std::to_string(gpu_index) + ": " + std::get<gpu::PlanError>(r).message);
  }
  MigInstance inst;
  inst.profile = profile;
  inst.profile_id = p.profile_id;
  inst.placement_start = placement_start;
  inst.placement_size = p.memory_slices;
  inst.gpu_instance_id = st.next_gpu_instance_id++;
  inst.compute_instance_id = 0;
  inst.uuid = sim::simulated_uuid("MIG-", impl_->options.node_name, gpu_index, inst.gpu_instance_id);
  inst.memory_mib = p.memory_mib;
  st.instances.push_back(inst);
  std::sort(st.instances.begin(), st.instances.end(),
            [](const auto& x, const auto& y) { return x.placement_start < y.placement_start; });
  impl_->save();
  return inst;
}

void SimulatedBackend::destroy_mig_instance(int gpu_index, int gpu_instance_id) {
  std::lock_guard lock(impl_->mu);
  impl_->refresh_world();
  impl_->take_time();
  const Board b = impl_->board(gpu_index);
  sim::GpuState& st = impl_->state.by_uuid[b.uuid];
  auto it = std::find_if(st.instances.begin(), st.instances.end(),
                         [&](const MigInstance& i) { return i.gpu_instance_id == gpu_instance_id; });
  if (it == st.instances.end()) {
    throw BackendError("NVML_ERROR_NOT_FOUND", "GPU " + std::to_string(gpu_index) + " has no GPU instance " +
                                                   std::to_string(gpu_instance_id));
  }
  st.instances.erase(it);
  impl_->save();
}

void SimulatedBackend::set_amd_partition(int gpu_index, const std::string& compute, const std::string& memory) {
  std::lock_guard lock(impl_->mu);
  impl_->refresh_world();
  const Board b = impl_->board(gpu_index);
  if (b.model == nullptr || !b.model->amd_partitions) {
    throw BackendError("not-supported", "GPU " + std::to_string(gpu_index) + " has no AMD partition modes");
  }
  const auto& modes = *b.model->amd_partitions;
  sim::GpuState& st = impl_->state.by_uuid[b.uuid];
  const std::string c = compute.empty() ? (st.compute_partition.empty() ? modes.compute.front() : st.compute_partition)
                                        : compute;
  const std::string m = memory.empty() ? (st.memory_partition.empty() ? modes.memory.front() : st.memory_partition)
                                       : memory;
  if (!modes.supports(c, m)) {
    throw BackendError("invalid-argument", b.model->display_name + " does not support " + c + " with " + m);
  }
  st.compute_partition = c;
  st.memory_partition = m;  // the simulation reloads the driver itself
  impl_->save();
}

void SimulatedBackend::set_gpu_pods(std::vector<SimulatedPod> pods) {
  std::lock_guard lock(impl_->mu);
  impl_->pods = std::move(pods);
}

void SimulatedBackend::install_driver(const std::string& version, const std::function<bool()>& cancelled) {
  double seconds = 0;
  std::string fail;
  {
    std::lock_guard lock(impl_->mu);
    impl_->refresh_world();
    seconds = impl_->world.install_seconds;
    fail = impl_->world.install_fail;
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  while (std::chrono::steady_clock::now() < deadline) {
    if (cancelled && cancelled()) throw BackendError("cancelled", "driver install cancelled");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the install "runs"
  }
  if (!fail.empty()) throw BackendError("install-failed", fail);
  std::lock_guard lock(impl_->mu);
  impl_->state.driver_version = version;
  impl_->save();
}

}  // namespace gpupool::backend
