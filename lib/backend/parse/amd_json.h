// Shared reading helpers of the AMD tool parsers (amd_parse.h): guarded
// RapidJSON access that reports the JSON path of whatever it cannot read.
// Internal to gpupool_backend_parsers.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/backend/amd_parse.h"
#include "gpupool/common/rapidjson_config.h"

namespace gpupool::backend::amdsmi::detail {

// Thrown inside a parser; its boundary (guarded) turns it into Parsed::error.
class ReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses `text` as exactly one JSON value (iteratively: deep nesting cannot
// exhaust the stack). ReadError "invalid JSON at line L column C: ...".
void parse_json(rapidjson::Document& doc, std::string_view text);
// Parses the first JSON value of `text` (later ones may follow, as amd-smi
// prints several tables); returns the offset just past it.
std::size_t parse_json_prefix(rapidjson::Document& doc, std::string_view text);

std::string type_name(const rapidjson::Value& v);
// For messages: a string value quoted and cut to 40 characters, else its type.
std::string describe(const rapidjson::Value& v);

// "N/A", "n/a", "NA", "None", "" (after trimming): the tool has no value.
bool is_absent_text(std::string_view s);
std::string_view trim(std::string_view s);

struct Entry {
  const rapidjson::Value* value;
  std::string path;  // "$[0]", "$.gpu_data[3]"
};
// The per-GPU objects: a top-level array, or an object whose `wrapper`
// member is one. At most kMaxGpus; each must be an object.
std::vector<Entry> gpu_entries(const rapidjson::Value& root, const char* wrapper = "gpu_data");

// Member `key` of `obj` (which must be an object), nullptr when absent.
const rapidjson::Value* member(const rapidjson::Value& obj, std::string_view key);
// The same, comparing keys case-insensitively.
const rapidjson::Value* member_ci(const rapidjson::Value& obj, std::string_view key);
// An object member; absent, null or an absent-text string ("N/A") -> nullptr;
// any other type -> ReadError naming path.key.
const rapidjson::Value* section(const rapidjson::Value& obj, std::string_view key, const std::string& path);

// A scalar as text (numbers printed, bools "true"/"false"); null or an
// absent text -> nullopt; an object or array -> ReadError naming `path`.
std::optional<std::string> text(const rapidjson::Value* v, const std::string& path);

struct Quantity {
  double value = 0;
  std::string unit;  // "" when none was given
};
// 12, "12", "12.5 %", "55.0 °C", {"value": 12, "unit": "W"} -> quantity;
// absent / N/A (also as the "value") -> nullopt; anything else -> ReadError.
std::optional<Quantity> quantity(const rapidjson::Value* v, const std::string& path);

// A GPU index (a non-negative integer or its decimal text) from `key`.
int index_of(const rapidjson::Value& entry, std::string_view key, const std::string& path);

std::optional<double> to_double(std::string_view s);
// A finite value within int64 range, truncated toward zero; else nullopt.
std::optional<std::int64_t> to_int64(double d);
// "0x74a1", "74a1" (hex), or a JSON number -> device id.
std::optional<std::uint32_t> parse_hex_u32(std::string_view s);
// A memory quantity in MiB: unit B, KB/KiB, MB/MiB (amd-smi's MB are MiB),
// GB/GiB, TB; no unit means `default_unit`.
std::optional<std::int64_t> to_mib(const Quantity& q, std::string_view default_unit, const std::string& path);

// The catalog model of an AMD GPU: by the reported name, by the name in
// brackets of a pci.ids-style series ("Arcturus GL-XL [Instinct MI100]",
// "Aldebaran/MI200 [Instinct MI250X/MI250]"), else by PCI device id.
const gpu::GpuModel* match_model(const gpu::Catalog& catalog, std::string_view name, std::uint32_t device_id);

// An energy in millijoules, rounded: unit J, mJ, uJ/µJ; no unit means
// `default_unit`. Negative or out-of-range values are ReadErrors.
std::optional<std::int64_t> to_millijoules(const Quantity& q, std::string_view default_unit, const std::string& path);
// A clock in MHz, rounded: unit MHz (any case), GHz, KHz, Hz; no unit means MHz.
std::optional<std::int64_t> to_mhz(const Quantity& q, const std::string& path);

// Sorts by index and refuses a GPU listed twice.
void sort_unique_gpus(std::vector<GpuInfo>& gpus, std::string_view what);

// Runs `body`, turning every exception into Parsed::error prefixed with `what`.
template <class T, class F>
Parsed<T> guarded(std::string_view what, std::string_view input, F&& body) {
  Parsed<T> out;
  try {
    if (input.size() > kMaxInputBytes) {
      throw ReadError("input of " + std::to_string(input.size()) + " bytes exceeds the " +
                      std::to_string(kMaxInputBytes) + "-byte limit");
    }
    out.value = body();
  } catch (const std::exception& e) {
    out.value.reset();
    out.error = std::string(what) + ": " + e.what();
  } catch (...) {
    out.value.reset();
    out.error = std::string(what) + ": unreadable input";
  }
  return out;
}

}  // namespace gpupool::backend::amdsmi::detail
