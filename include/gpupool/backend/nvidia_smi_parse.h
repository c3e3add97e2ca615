// Parsers of nvidia-smi's output. Pure functions of the text: no process, no
// file, no global state, so the fuzz targets and the tests feed them anything.
//
// Contract shared by every parser here:
// - It returns either its result or a ParseError; it never throws and never
//   crashes, whatever the bytes (numbers are range-checked, sizes bounded:
//   kMaxInputBytes of input, kMaxRows rows, kMaxGpus GPUs).
// - ParseError::where names the place it could not read: an XML path
//   ("/nvidia_smi_log/gpu[2]/pci/pci_device_id", 1-based like XPath) or a line
//   ("line 7"); ParseError::message says what was wrong and quotes the text.
// - Values nvidia-smi prints for "no value" ("N/A", "[N/A]", "[Not Supported]",
//   any "[...]" bracketed text) are absent values, not errors. Unknown
//   elements, columns and trailing legend text are ignored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "gpupool/backend/backend.h"
#include "gpupool/gpu/catalog.h"

namespace gpupool::backend::nvsmi {

inline constexpr std::size_t kMaxInputBytes = 64u << 20;  // 64 MiB
inline constexpr std::size_t kMaxRows = 100000;            // table rows, processes, MIG devices in all
inline constexpr int kMaxGpus = 1024;

struct ParseError {
  std::string where;    // "/nvidia_smi_log/gpu[1]/uuid", "line 4"
  std::string message;  // "not a number: 'abc'"
  std::string to_string() const { return where + ": " + message; }
  bool operator==(const ParseError&) const = default;
};

// A parser's answer: the value, or why there is none.
template <class T>
class ParseResult {
 public:
  ParseResult(T value) : v_(std::move(value)) {}             // NOLINT: implicit by design
  ParseResult(ParseError error) : v_(std::move(error)) {}    // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  // Preconditions: ok() for value(), !ok() for error().
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const ParseError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, ParseError> v_;
};

// ---- nvidia-smi -q -x ------------------------------------------------------

// One <mig_device> (a compute instance of a GPU instance).
struct XmlMigDevice {
  int gpu_index = 0;             // the GPU's index (its position in the log)
  int device_index = 0;          // <index>: the "Device N" of nvidia-smi -L
  int gpu_instance_id = -1;
  int compute_instance_id = -1;
  std::int64_t memory_mib = 0;   // <fb_memory_usage><total>; 0 when absent
  std::optional<std::int64_t> memory_used_mib;  // <fb_memory_usage><used>
  std::optional<std::int64_t> memory_free_mib;  // <fb_memory_usage><free>
  bool operator==(const XmlMigDevice&) const = default;
};

struct QueryXml {
  // driver and CUDA versions and the GPUs, sorted by index. A GPU's index is
  // its position in the log (nvidia-smi lists GPUs in index order; the
  // <minor_number> is the /dev/nvidiaN number, which may differ). Each GPU's
  // instances come from its <mig_devices>: ids only (profile "", profile_id
  // -1, placement 0:0, uuid ""), one per GPU instance (the lowest compute
  // instance id), sorted by gpu_instance_id; merge_mig_tables completes them.
  // links are empty (-q -x does not report topology).
  Inventory inventory;
  std::vector<XmlMigDevice> mig_devices;  // every <mig_device>, in log order
  std::vector<GpuProcess> processes;      // every <process_info>, by GPU in log order
};

// Accepts DTD versions v10..v13, with or without the DOCTYPE line, text
// before the XML (nvidia-smi prints warnings such as "WARNING: infoROM is
// corrupted" on stdout first), Windows (WDDM/TCC driver model) and vGPU guest
// logs. catalog_id and mig_capable come from `catalog` (mig_capable also when
// the log reports a MIG mode other than N/A). Errors: text that is not XML
// (where "line N"), a root other than <nvidia_smi_log>, or a present value
// that does not read as its type (where the element's path).
ParseResult<QueryXml> parse_query_xml(std::string_view text, const gpu::Catalog& catalog);

// ---- nvidia-smi -L ---------------------------------------------------------

struct ListedMigDevice {
  std::string profile;   // "3g.40gb" (the text after "MIG ")
  int device_index = 0;  // "Device  N": <mig_device><index> of -q -x
  std::string uuid;      // "MIG-..." (R450 drivers printed "MIG-GPU-<uuid>/<gi>/<ci>")
  bool operator==(const ListedMigDevice&) const = default;
};
struct ListedGpu {
  int index = 0;
  std::string name;      // "NVIDIA H100 80GB HBM3"
  std::string uuid;      // "GPU-..."; empty when the line has no UUID
  std::vector<ListedMigDevice> mig_devices;
  bool operator==(const ListedGpu&) const = default;
};
// "GPU 0: <name> (UUID: GPU-...)" lines, each followed by its indented
// "MIG <profile> Device N: (UUID: MIG-...)" lines. Blank lines are skipped;
// any other line is an error naming it ("line 3").
ParseResult<std::vector<ListedGpu>> parse_list(std::string_view text);

// ---- nvidia-smi --query-gpu=... --format=csv -------------------------------

// The fields the backend asks for, in this order. nvidia-smi names some of
// them differently in its header ("clocks.current.sm [MHz]" for clocks.sm,
// "clocks.current.memory" for clocks.mem); drivers before R535 know the
// clock event reasons only as clocks_throttle_reasons.active, which
// kQueryGpuFieldsBeforeR535 asks for instead (same columns, same order).
// nvidia-smi offers no total-energy field, so energy stays empty.
inline constexpr std::string_view kQueryGpuFields =
    "index,uuid,name,pci.bus_id,memory.total,driver_version,mig.mode.current,mig.mode.pending,"
    "temperature.gpu,power.draw,utilization.gpu,memory.used,"
    "ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.volatile.total,"
    "memory.free,clocks.sm,clocks.mem,clocks_event_reasons.active";
inline constexpr std::string_view kQueryGpuFieldsBeforeR535 =
    "index,uuid,name,pci.bus_id,memory.total,driver_version,mig.mode.current,mig.mode.pending,"
    "temperature.gpu,power.draw,utilization.gpu,memory.used,"
    "ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.volatile.total,"
    "memory.free,clocks.sm,clocks.mem,clocks_throttle_reasons.active";
inline constexpr std::size_t kQueryGpuColumns = 18;
// The first columns alone: the list this project asked for before it read
// clocks and clock event reasons (recorded outputs keep that shape).
inline constexpr std::size_t kQueryGpuColumnsBeforeTelemetry = 14;

struct QueryGpuRow {
  int index = 0;
  std::string uuid;
  std::string name;
  std::string pci_bus_id;
  std::optional<std::int64_t> memory_total_mib;
  std::string driver_version;
  std::optional<MigMode> mig_current;  // absent on GPUs without MIG
  std::optional<MigMode> mig_pending;
  // index, temperature, power, utilisation, memory used / free / total, SM
  // and memory clocks, ECC, clock event reasons with their NVML mask
  // ("0x0000000000000001" -> gpu_idle); no energy, no MIG instances.
  GpuMetrics metrics;
};
// Without a header (noheader): every line has exactly the kQueryGpuColumns
// columns of kQueryGpuFields in that order (or its first
// kQueryGpuColumnsBeforeTelemetry). With the header line ("index, uuid, ...
// memory.total [MiB], ..."), columns are matched by name, either spelling,
// may come in any order and may be missing except index; unknown columns are
// ignored. Values may carry units ("81559 MiB", "71.15 W", "45 %", "345 MHz")
// or not (nounits). Errors name the line and the column: a wrong number of
// columns, an index, number or hexadecimal mask that does not read.
ParseResult<std::vector<QueryGpuRow>> parse_query_gpu_csv(std::string_view text);

// ---- nvidia-smi mig -lgi / -lgip / -lgipp / -lci ---------------------------

// "No GPU instances found", "No compute instances found" and "No MIG-enabled
// devices found" messages read as empty tables. Table rows before the
// "|====|" line are headings; after it, "+---+" lines separate rows and
// anything that is not a "| ... |" row is an error naming its line.

struct GpuInstanceRow {  // mig -lgi
  int gpu = 0;
  std::string profile;   // "3g.20gb"
  int profile_id = 0;
  int instance_id = 0;
  int placement_start = 0;
  int placement_size = 0;
  bool operator==(const GpuInstanceRow&) const = default;
};
ParseResult<std::vector<GpuInstanceRow>> parse_mig_lgi(std::string_view text);

struct GpuInstanceProfileRow {  // mig -lgip
  int gpu = 0;
  std::string profile;   // "1g.5gb+me"
  int profile_id = 0;
  int free = 0;          // "Instances Free/Total"
  int total = 0;
  double memory_gib = 0; // "4.75"
  bool operator==(const GpuInstanceProfileRow&) const = default;
};
// Each profile's second line (CE/JPEG/OFA counts) is skipped.
ParseResult<std::vector<GpuInstanceProfileRow>> parse_mig_lgip(std::string_view text);

struct GpuInstancePlacementRow {  // mig -lgipp
  int gpu = 0;
  int profile_id = 0;
  std::vector<gpu::MigPlacement> placements;  // "{0,2}:2" -> {0,2},{2,2}
  bool operator==(const GpuInstancePlacementRow&) const = default;
};
// "GPU  0 Profile ID  5 Placements: {0,2}:2" (and "Placement : {0}:4").
ParseResult<std::vector<GpuInstancePlacementRow>> parse_mig_lgipp(std::string_view text);

struct ComputeInstanceRow {  // mig -lci
  int gpu = 0;
  int gpu_instance_id = 0;
  std::string profile;   // "3g.20gb", "1c.3g.20gb"
  int profile_id = 0;    // compute-instance profile id
  int instance_id = 0;   // compute instance id
  int placement_start = 0;
  int placement_size = 0;
  bool operator==(const ComputeInstanceRow&) const = default;
};
ParseResult<std::vector<ComputeInstanceRow>> parse_mig_lci(std::string_view text);

// "Successfully created GPU instance ID  1 on GPU  0 using profile MIG 3g.20gb (ID  9)"
// and "Successfully created compute instance ID  0 on GPU  0 GPU instance ID  1 ..."
// as printed by mig -cgi <id>:<start> -C. compute_instance_id is -1 when no
// compute-instance line is there; an error when no GPU-instance line is.
struct CreatedInstance {
  int gpu = 0;
  int gpu_instance_id = -1;
  int compute_instance_id = -1;
  bool operator==(const CreatedInstance&) const = default;
};
ParseResult<CreatedInstance> parse_mig_create(std::string_view text);

// ---- nvidia-smi topo -m ----------------------------------------------------

// The GPU-to-GPU part of the matrix: one link per pair a < b, sorted, read
// from row GPUa, column GPUb. NV# is nvlink with # links; PIX, PXB, PHB, NODE,
// SYS (and the older SOC) the PCIe kinds; any other label is LinkKind::unknown.
// NIC rows and columns, the CPU/NUMA affinity columns and the legend are
// ignored; ANSI colour codes are stripped. Errors: no header with GPU columns,
// a GPU row with fewer cells than GPU columns, a row for a GPU not in the
// header or twice, a diagonal cell other than X.
ParseResult<std::vector<GpuLink>> parse_topo_matrix(std::string_view text);

// ---- putting the pieces together -------------------------------------------

// Completes inventory.gpus[].instances from the MIG tables: one MigInstance
// per -lgi row of a GPU in the inventory (profile named as the catalog model
// names that profile id, else as -lgi prints it; placement from -lgi), its
// compute_instance_id the lowest -lci id in that GPU instance (else the -q -x
// one, else -1), its uuid from -L through the -q -x device index. Instances
// end up sorted by placement_start. GPUs with no -lgi rows keep what they had.
void merge_mig_tables(Inventory& inventory, const std::vector<GpuInstanceRow>& gpu_instances,
                      const std::vector<ComputeInstanceRow>& compute_instances,
                      const std::vector<XmlMigDevice>& mig_devices, const std::vector<ListedGpu>& listed,
                      const gpu::Catalog& catalog);

// Gives each GpuMetrics of a GPU with <mig_device>s one InstanceMetrics per
// GPU instance (sorted by id) holding the memory of its device with the
// lowest compute instance id (total 0 in the log reads as unknown).
// nvidia-smi reports no activity per MIG instance: those fields stay empty.
void merge_mig_device_memory(std::vector<GpuMetrics>& metrics, const std::vector<XmlMigDevice>& mig_devices);

}  // namespace gpupool::backend::nvsmi
