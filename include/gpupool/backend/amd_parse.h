// Pure parsers of AMD's GPU tools: amd-smi (ROCm 6.0 and later) and, for
// nodes without it, rocm-smi. They run no process; the AMD backend
// (amd_backend.h) feeds them the tools' output.
//
// Every parser takes any bytes and never throws or crashes: it returns the
// value, or an error that names the command, then the JSON path (or the text
// line) it could not read:
//   "amd-smi static --json: $.gpu_data[1].asic.device_id: expected a PCI device id like \"0x74a1\", got \"abc\""
//   "amd-smi metric --json: invalid JSON at line 3 column 7: Missing a comma or ']' after an array element."
//
// Shapes accepted (all seen in released amd-smi versions):
// - the per-GPU list as a plain top-level array `[{"gpu": 0, ...}]` (ROCm
//   6.0-6.3) or wrapped as `{"gpu_data": [{"gpu": 0, ...}]}` (later releases);
// - leaf values as `{"value": 300, "unit": "W"}`, a bare number, or a string
//   with a unit ("300 W", "65520 MB"); "N/A" anywhere means "not reported"
//   and leaves the field unset rather than failing;
// - renamed fields across versions (gfx_usage/gfx_activity,
//   total_correctable/total_correctable_count, compute_partition/
//   accelerator_partition, ...).
// Missing sections and unknown fields are fine; a present field of the wrong
// JSON type, a number that is not one, or a GPU listed twice is an error.
// Sizes are bounded: inputs over kMaxInputBytes and more than kMaxGpus GPUs
// are refused, and nesting is parsed without recursion.
//
// amd-smi prints sizes in "MB" that are MiB (it divides bytes by 1024*1024);
// memory fields below are MiB.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/backend/backend.h"
#include "gpupool/gpu/catalog.h"

namespace gpupool::backend::amdsmi {

inline constexpr std::size_t kMaxInputBytes = std::size_t{32} << 20;
inline constexpr std::size_t kMaxGpus = 4096;
inline constexpr std::size_t kMaxProcesses = 65536;

// A parser's answer: the value, or (value empty) the error described above.
template <class T>
struct Parsed {
  std::optional<T> value;
  std::string error;
  explicit operator bool() const { return value.has_value(); }
};

// `amd-smi static --json` (any flag subset, any -g selection) -> Inventory
// with vendor amd and, per GPU: index ("gpu"), name (asic.market_name, else
// board.product_name, else the catalog's display name), pci_device_id
// (asic.device_id), pci_bus_id (bus.bdf), memory_mib (vram.size),
// compute/memory partition (partition.*), uuid (asic.asic_serial, else
// board.product_serial; `amd-smi list` has the real UUID: see merge_list)
// and catalog_id (by name, else by PCI device id). driver_version is the
// first GPU's driver.version; links stay empty.
Parsed<Inventory> parse_static_json(std::string_view json, const gpu::Catalog& catalog);

// One row of `amd-smi list --json`.
struct ListEntry {
  int index = 0;
  std::string uuid;        // "8fff74a1-0000-1000-80f3-a5c1d2e3f405"; "" when N/A
  std::string pci_bus_id;  // "0000:05:00.0"; "" when N/A
  bool operator==(const ListEntry&) const = default;
};
Parsed<std::vector<ListEntry>> parse_list_json(std::string_view json);
// Copies each listed GPU's uuid (and bdf where static had none) into `inventory`.
void merge_list(Inventory& inventory, const std::vector<ListEntry>& list);

// `amd-smi metric --json` (plain-array and gpu_data forms) -> one GpuMetrics
// per GPU, sorted by index: temperature (temperature.hotspot, else .edge),
// power (power.socket_power, else current_power / average_socket_power),
// utilisation (usage.gfx_activity or gfx_usage), memory used / free / total
// (mem_usage.used_vram, free_vram, total_vram), energy
// (energy.total_energy_consumption, joules), SM and memory clocks
// (clock.gfx_0.clk / clock.mem_0.clk; ROCm 6.0's clock.gfx / clock.mem),
// ECC totals (ecc.total_[un]correctable[_count]). amd-smi reports no NVML
// clock event mask (power.throttle_status is a yes/no): those stay empty. A
// partitioned GPU (CPX) is listed as one GPU per partition, so its
// partitions are GpuMetrics of their own; `instances` stays empty.
Parsed<std::vector<GpuMetrics>> parse_metric_json(std::string_view json);

// A GPU's partition modes as amd-smi reports them ("CPX", "NPS4"; "" when N/A).
struct PartitionModes {
  int index = 0;
  std::string compute;
  std::string memory;
  bool operator==(const PartitionModes&) const = default;
};
// `amd-smi partition [--current] --json`: the {"current_partition": [...]}
// object of later releases, or the concatenated arrays ROCm 6.3 prints (the
// first is the current table). Also reads `amd-smi static --partition --json`.
Parsed<std::vector<PartitionModes>> parse_partition_json(std::string_view json);
// `amd-smi partition [--current]` as text: the table under the GPU_ID /
// MEMORY / ACCELERATOR_TYPE header. Errors name the line.
Parsed<std::vector<PartitionModes>> parse_partition_text(std::string_view text);

// `amd-smi process --json` -> every process on every GPU, sorted by GPU then
// pid; "No running processes detected" / "N/A" entries yield nothing.
// used_memory_mib is the process's VRAM (memory_usage.vram_mem, else mem_usage).
Parsed<std::vector<GpuProcess>> parse_process_json(std::string_view json);

// `rocm-smi --json` (any of --showid --showproductname --showbus --showmeminfo
// vram --showuniqueid --showserial --showdriverversion --showcomputepartition
// --showmemorypartition): {"card0": {...}, "system": {...}} -> Inventory.
// Keys are matched case-insensitively ("Card series" / "Card Series").
Parsed<Inventory> parse_rocm_smi_json(std::string_view json, const gpu::Catalog& catalog);
// `rocm-smi --showtemp --showpower --showuse --showmeminfo vram --showclocks
// --showenergycounter --json` -> metrics: memory total and used (free their
// difference), clocks from "sclk clock speed:" / "mclk clock speed:"
// ("(1700Mhz)"), energy from "Accumulated Energy (uJ)". rocm-smi reports no
// ECC totals or clock event mask here; those stay unset.
Parsed<std::vector<GpuMetrics>> parse_rocm_smi_metrics_json(std::string_view json);

// "SPX", "cpx", "CPX*" (amd-smi marks the current profile) -> "CPX"; "N/A" -> "".
std::string normalize_partition_mode(std::string_view reported);

}  // namespace gpupool::backend::amdsmi
