// nvidia-smi --query-gpu=<kQueryGpuFields> --format=csv[,noheader][,nounits] (nvidia_smi_parse.h)
#include <algorithm>
#include <array>

#include "gpupool/backend/nvidia_smi_parse.h"
#include "nvidia_smi_text.h"

namespace gpupool::backend::nvsmi {

namespace {

enum class Field {
  index, uuid, name, pci_bus_id, memory_total, driver_version, mig_current, mig_pending,
  temperature, power, utilization, memory_used, ecc_corrected, ecc_uncorrected,
  memory_free, sm_clock, memory_clock, clock_event_reasons, ignored
};
static_assert(static_cast<std::size_t>(Field::ignored) == kQueryGpuColumns);

// Each field's names: as asked for in kQueryGpuFields first (used in
// messages), then the other spellings nvidia-smi uses.
constexpr std::array<std::array<std::string_view, 2>, kQueryGpuColumns> kNames = {{
    {"index"}, {"uuid"}, {"name"}, {"pci.bus_id"}, {"memory.total"}, {"driver_version"},
    {"mig.mode.current"}, {"mig.mode.pending"}, {"temperature.gpu"}, {"power.draw"}, {"utilization.gpu"},
    {"memory.used"}, {"ecc.errors.corrected.volatile.total"}, {"ecc.errors.uncorrected.volatile.total"},
    {"memory.free"}, {"clocks.sm", "clocks.current.sm"}, {"clocks.mem", "clocks.current.memory"},
    {"clocks_event_reasons.active", "clocks_throttle_reasons.active"},
}};

Field field_named(std::string_view header) {
  // "memory.total [MiB]" -> "memory.total"
  if (const auto bracket = header.find(" ["); bracket != std::string_view::npos) header = text::trim(header.substr(0, bracket));
  if (header.empty()) return Field::ignored;
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    for (const std::string_view name : kNames[i]) {
      if (name == header) return static_cast<Field>(i);
    }
  }
  return Field::ignored;
}

class RowReader {
 public:
  RowReader(std::string where, QueryGpuRow& row) : where_(std::move(where)), row_(row) {}
  std::optional<ParseError> error;

  void read(Field f, std::string_view raw) {
    const bool absent = text::is_absent(raw);
    const std::string_view v = text::strip_unit(raw);
    const std::string column(f == Field::ignored ? "?" : kNames[static_cast<std::size_t>(f)][0]);
    switch (f) {
      case Field::index: {
        const auto i = absent ? std::nullopt : text::to_int32(v, 0, kMaxGpus - 1);
        if (!i) return fail(column, "not a GPU index: " + text::quote(raw));
        row_.index = *i;
        row_.metrics.index = *i;
        return;
      }
      case Field::uuid: row_.uuid = absent ? "" : std::string(v); return;
      case Field::name: row_.name = absent ? "" : std::string(text::trim(raw)); return;
      case Field::pci_bus_id: row_.pci_bus_id = absent ? "" : std::string(v); return;
      case Field::driver_version: row_.driver_version = absent ? "" : std::string(v); return;
      case Field::memory_total:
        row_.memory_total_mib = row_.metrics.memory_total_mib = integer(column, raw, absent, v);
        return;
      case Field::memory_used: row_.metrics.memory_used_mib = integer(column, raw, absent, v); return;
      case Field::ecc_corrected: row_.metrics.ecc_corrected_total = integer(column, raw, absent, v); return;
      case Field::ecc_uncorrected: row_.metrics.ecc_uncorrected_total = integer(column, raw, absent, v); return;
      case Field::temperature: row_.metrics.temperature_celsius = number(column, raw, absent, v); return;
      case Field::power: row_.metrics.power_watts = number(column, raw, absent, v); return;
      case Field::utilization: row_.metrics.utilization_percent = number(column, raw, absent, v); return;
      case Field::memory_free: row_.metrics.memory_free_mib = integer(column, raw, absent, v); return;
      case Field::sm_clock: row_.metrics.sm_clock_mhz = integer(column, raw, absent, v); return;
      case Field::memory_clock: row_.metrics.memory_clock_mhz = integer(column, raw, absent, v); return;
      case Field::clock_event_reasons: return reasons(column, raw, absent, v);
      case Field::mig_current: row_.mig_current = mig(column, raw, absent, v); return;
      case Field::mig_pending: row_.mig_pending = mig(column, raw, absent, v); return;
      case Field::ignored: return;
    }
  }

 private:
  std::string where_;
  QueryGpuRow& row_;

  void fail(const std::string& column, const std::string& message) {
    if (!error) error = ParseError{where_, "column " + column + ": " + message};
  }
  std::optional<std::int64_t> integer(const std::string& column, std::string_view raw, bool absent, std::string_view v) {
    if (absent) return std::nullopt;
    const auto n = text::to_int(v, 0, std::int64_t{1} << 50);
    if (!n) fail(column, "not a whole number: " + text::quote(raw));
    return n;
  }
  std::optional<double> number(const std::string& column, std::string_view raw, bool absent, std::string_view v) {
    if (absent) return std::nullopt;
    const auto n = text::to_double(v);
    if (!n) fail(column, "not a number: " + text::quote(raw));
    return n;
  }
  // "0x0000000000000001": NVML's bitmask.
  void reasons(const std::string& column, std::string_view raw, bool absent, std::string_view v) {
    if (absent) return;
    const auto mask = text::starts_with(v, "0x") || text::starts_with(v, "0X") ? text::to_hex(v) : std::nullopt;
    if (!mask) return fail(column, "not a hexadecimal mask: " + text::quote(raw));
    row_.metrics.clock_event_reasons_mask = *mask;
    row_.metrics.clock_event_reasons = clock_event_reason_names(*mask);
  }
  std::optional<MigMode> mig(const std::string& column, std::string_view raw, bool absent, std::string_view v) {
    if (absent) return std::nullopt;
    if (v == "Enabled") return MigMode::enabled;
    if (v == "Disabled") return MigMode::disabled;
    fail(column, "neither Enabled nor Disabled: " + text::quote(raw));
    return std::nullopt;
  }
};

}  // namespace

ParseResult<std::vector<QueryGpuRow>> parse_query_gpu_csv(std::string_view input) {
  if (input.size() > kMaxInputBytes) return ParseError{"input", "larger than " + std::to_string(kMaxInputBytes) + " bytes"};
  std::vector<QueryGpuRow> rows;
  std::vector<Field> columns;
  bool have_columns = false;
  const auto all = text::lines(input);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::string where = text::line_where(i + 1);
    if (text::trim(all[i]).empty()) continue;
    const auto cells = text::split_trim(all[i], ',');
    if (!have_columns) {
      have_columns = true;
      const bool header = std::any_of(cells.begin(), cells.end(),
                                      [](std::string_view cell) { return field_named(cell) != Field::ignored; });
      if (header) {
        for (const auto cell : cells) columns.push_back(field_named(cell));
        if (std::find(columns.begin(), columns.end(), Field::index) == columns.end()) {
          return ParseError{where, "the header has no index column: " + text::quote(all[i])};
        }
        continue;
      }
      // Positional: every field, or the first ones of the older list.
      const std::size_t n = cells.size() == kQueryGpuColumnsBeforeTelemetry ? cells.size() : kQueryGpuColumns;
      for (std::size_t f = 0; f < n; ++f) columns.push_back(static_cast<Field>(f));
    }
    if (cells.size() != columns.size()) {
      return ParseError{where, "expected " + std::to_string(columns.size()) + " comma-separated columns, got " +
                                   std::to_string(cells.size()) + ": " + text::quote(all[i])};
    }
    if (rows.size() >= kMaxRows) return ParseError{where, "more than " + std::to_string(kMaxRows) + " rows"};
    QueryGpuRow row;
    RowReader reader(where, row);
    for (std::size_t c = 0; c < cells.size() && !reader.error; ++c) {
      reader.read(columns[c], cells[c]);
    }
    if (reader.error) return *reader.error;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace gpupool::backend::nvsmi
