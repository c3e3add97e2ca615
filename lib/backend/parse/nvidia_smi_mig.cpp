// nvidia-smi mig -lgi / -lgip / -lgipp / -lci tables and -cgi ... -C output.
#include <functional>

#include "gpupool/backend/nvidia_smi_parse.h"
#include "nvidia_smi_text.h"

namespace gpupool::backend::nvsmi {

namespace {

using Words = std::vector<std::string_view>;
using RowFn = std::function<std::optional<ParseError>(const std::string& where, std::string_view line, const Words& words)>;

std::string too_large() { return "larger than " + std::to_string(kMaxInputBytes) + " bytes"; }

// "No GPU instances found: Not Found", "No MIG-enabled devices found."
bool is_none_found(std::string_view line) { return text::starts_with(line, "No ") && text::contains(line, "found"); }

bool is_separator(std::string_view line) {
  if (line.size() < 2 || line.front() != '+') return false;
  for (const char c : line) {
    if (c != '+' && c != '-') return false;
  }
  return true;
}

// Calls `row` for every "| ... |" line after the "|====|" line, with the
// words between the bars.
std::optional<ParseError> for_each_table_row(std::string_view input, const RowFn& row) {
  if (input.size() > kMaxInputBytes) return ParseError{"input", too_large()};
  bool in_body = false;
  std::size_t rows = 0;
  const auto all = text::lines(input);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::string_view line = text::trim(all[i]);
    const std::string where = text::line_where(i + 1);
    if (line.empty() || is_none_found(line)) continue;
    if (!in_body) {
      if (text::starts_with(line, "|=")) {
        in_body = true;
      } else if (line.front() != '+' && line.front() != '|') {
        return ParseError{where, "not part of a table: " + text::quote(line)};
      }
      continue;
    }
    if (is_separator(line)) continue;
    if (line.size() < 2 || line.front() != '|' || line.back() != '|') {
      return ParseError{where, "expected a '| ... |' table row, got " + text::quote(line)};
    }
    if (++rows > kMaxRows) return ParseError{where, "more than " + std::to_string(kMaxRows) + " rows"};
    const std::string_view inner = line.substr(1, line.size() - 2);
    if (auto err = row(where, line, text::words(inner))) return err;
  }
  if (!in_body && rows == 0) {
    // Only headings (or nothing, or a "No ... found" message): an empty table
    // when there were no headings either.
    for (std::size_t i = 0; i < all.size(); ++i) {
      const std::string_view line = text::trim(all[i]);
      if (!line.empty() && !is_none_found(line)) return ParseError{text::line_where(i + 1), "table without a '|===|' line"};
    }
  }
  return std::nullopt;
}

std::optional<int> small_int(std::string_view s) { return text::to_int32(s, 0, 1 << 20); }

// "4:4" -> {4, 4}
bool placement(std::string_view s, int& start, int& size) {
  const auto colon = s.find(':');
  if (colon == std::string_view::npos) return false;
  const auto a = text::to_int32(s.substr(0, colon), 0, 1024);
  const auto b = text::to_int32(s.substr(colon + 1), 0, 1024);
  if (!a || !b) return false;
  start = *a;
  size = *b;
  return true;
}

// Drops the "MIG" of the name column when there is one.
Words without_mig_word(const Words& w, std::size_t name_at) {
  Words out = w;
  if (out.size() > name_at && out[name_at] == "MIG") out.erase(out.begin() + static_cast<std::ptrdiff_t>(name_at));
  return out;
}

ParseError bad_row(const std::string& where, std::string_view expected, std::string_view line) {
  return ParseError{where, "expected " + std::string(expected) + ", got " + text::quote(line)};
}

}  // namespace

ParseResult<std::vector<GpuInstanceRow>> parse_mig_lgi(std::string_view input) {
  std::vector<GpuInstanceRow> out;
  auto err = for_each_table_row(input, [&](const std::string& where, std::string_view line, const Words& words)
                                           -> std::optional<ParseError> {
    const Words w = without_mig_word(words, 1);
    constexpr std::string_view kExpected = "'| GPU  MIG <profile>  <profile id>  <instance id>  <start>:<size> |'";
    if (w.size() != 5) return bad_row(where, kExpected, line);
    GpuInstanceRow r;
    const auto gpu = text::to_int32(w[0], 0, kMaxGpus - 1);
    const auto profile_id = small_int(w[2]);
    const auto instance_id = small_int(w[3]);
    if (!gpu || !profile_id || !instance_id || !placement(w[4], r.placement_start, r.placement_size)) {
      return bad_row(where, kExpected, line);
    }
    r.gpu = *gpu;
    r.profile = std::string(w[1]);
    r.profile_id = *profile_id;
    r.instance_id = *instance_id;
    out.push_back(std::move(r));
    return std::nullopt;
  });
  if (err) return *err;
  return out;
}

ParseResult<std::vector<GpuInstanceProfileRow>> parse_mig_lgip(std::string_view input) {
  std::vector<GpuInstanceProfileRow> out;
  auto err = for_each_table_row(input, [&](const std::string& where, std::string_view line, const Words& words)
                                           -> std::optional<ParseError> {
    constexpr std::string_view kExpected = "'| GPU  MIG <profile>  <id>  <free>/<total>  <GiB> ... |'";
    if (words.size() < 2 || words[1] != "MIG") {
      // The second line of a profile: CE / JPEG / OFA counts only.
      for (const auto word : words) {
        if (!small_int(word) && word != "-" && word != "N/A") return bad_row(where, kExpected, line);
      }
      return std::nullopt;
    }
    const Words w = without_mig_word(words, 1);
    if (w.size() < 5) return bad_row(where, kExpected, line);
    const auto gpu = text::to_int32(w[0], 0, kMaxGpus - 1);
    const auto id = small_int(w[2]);
    const auto slash = w[3].find('/');
    const auto free = small_int(w[3].substr(0, slash));
    const auto total = slash == std::string_view::npos ? std::nullopt : small_int(w[3].substr(slash + 1));
    const auto gib = text::to_double(w[4]);
    if (!gpu || !id || !free || !total || !gib || *gib < 0) return bad_row(where, kExpected, line);
    out.push_back(GpuInstanceProfileRow{*gpu, std::string(w[1]), *id, *free, *total, *gib});
    return std::nullopt;
  });
  if (err) return *err;
  return out;
}

ParseResult<std::vector<ComputeInstanceRow>> parse_mig_lci(std::string_view input) {
  std::vector<ComputeInstanceRow> out;
  auto err = for_each_table_row(input, [&](const std::string& where, std::string_view line, const Words& words)
                                           -> std::optional<ParseError> {
    const Words w = without_mig_word(words, 2);
    constexpr std::string_view kExpected =
        "'| GPU  <GPU instance id>  MIG <profile>  <profile id>  <instance id>  <start>:<size> |'";
    if (w.size() != 6) return bad_row(where, kExpected, line);
    ComputeInstanceRow r;
    const auto gpu = text::to_int32(w[0], 0, kMaxGpus - 1);
    const auto gi = small_int(w[1]);
    const auto profile_id = small_int(w[3]);
    const auto ci = small_int(w[4]);
    if (!gpu || !gi || !profile_id || !ci || !placement(w[5], r.placement_start, r.placement_size)) {
      return bad_row(where, kExpected, line);
    }
    r.gpu = *gpu;
    r.gpu_instance_id = *gi;
    r.profile = std::string(w[2]);
    r.profile_id = *profile_id;
    r.instance_id = *ci;
    out.push_back(std::move(r));
    return std::nullopt;
  });
  if (err) return *err;
  return out;
}

ParseResult<std::vector<GpuInstancePlacementRow>> parse_mig_lgipp(std::string_view input) {
  if (input.size() > kMaxInputBytes) return ParseError{"input", too_large()};
  std::vector<GpuInstancePlacementRow> out;
  const auto all = text::lines(input);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::string_view line = text::trim(all[i]);
    const std::string where = text::line_where(i + 1);
    if (line.empty() || is_none_found(line)) continue;
    constexpr std::string_view kExpected = "'GPU <n> Profile ID <id> Placements: {<start>,...}:<size>'";
    const auto open = line.find('{');
    const auto close = line.find('}');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
      return bad_row(where, kExpected, line);
    }
    // GPU n Profile ID id Placements:  |  GPU n Profile ID id Placement :
    const Words w = text::words(line.substr(0, open));
    const bool head_ok = (w.size() == 6 && w[5] == "Placements:") ||
                         (w.size() == 7 && w[5] == "Placement" && w[6] == ":") ||
                         (w.size() == 6 && w[5] == "Placement:");
    if (!head_ok || w[0] != "GPU" || w[2] != "Profile" || w[3] != "ID") return bad_row(where, kExpected, line);
    const auto gpu = text::to_int32(w[1], 0, kMaxGpus - 1);
    const auto id = small_int(w[4]);
    const std::string_view after = text::trim(line.substr(close + 1));
    const auto size = after.size() > 1 && after.front() == ':' ? text::to_int32(after.substr(1), 1, 1024) : std::nullopt;
    if (!gpu || !id || !size) return bad_row(where, kExpected, line);
    if (out.size() >= kMaxRows) return ParseError{where, "more than " + std::to_string(kMaxRows) + " rows"};
    GpuInstancePlacementRow r{*gpu, *id, {}};
    for (const auto start : text::split_trim(line.substr(open + 1, close - open - 1), ',')) {
      const auto s = text::to_int32(start, 0, 1024);
      if (!s) return ParseError{where, "not a placement start: " + text::quote(start)};
      if (r.placements.size() >= 1024) return ParseError{where, "more than 1024 placements"};
      r.placements.push_back(gpu::MigPlacement{*s, *size});
    }
    out.push_back(std::move(r));
  }
  return out;
}

ParseResult<CreatedInstance> parse_mig_create(std::string_view input) {
  if (input.size() > kMaxInputBytes) return ParseError{"input", too_large()};
  CreatedInstance created;
  bool have_gi = false;
  const auto all = text::lines(input);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Words w = text::words(all[i]);
    const std::string where = text::line_where(i + 1);
    if (w.size() < 2 || w[0] != "Successfully" || w[1] != "created") continue;
    // Successfully created GPU instance ID  1 on GPU  0 using profile ...
    if (w.size() >= 9 && w[2] == "GPU" && w[3] == "instance" && w[4] == "ID" && w[7] == "GPU") {
      if (have_gi) continue;  // one instance was asked for; the first is it
      const auto gi = small_int(w[5]);
      const auto gpu = text::to_int32(w[8], 0, kMaxGpus - 1);
      if (!gi || !gpu) return ParseError{where, "unreadable GPU instance line: " + text::quote(all[i])};
      created.gpu = *gpu;
      created.gpu_instance_id = *gi;
      have_gi = true;
      continue;
    }
    // Successfully created compute instance ID  0 on GPU  0 GPU instance ID  1 using profile ...
    if (w.size() >= 13 && w[2] == "compute" && w[3] == "instance" && w[4] == "ID" && w[9] == "GPU" && w[11] == "ID") {
      const auto ci = small_int(w[5]);
      const auto gi = small_int(w[12]);
      if (!ci || !gi) return ParseError{where, "unreadable compute instance line: " + text::quote(all[i])};
      if (created.compute_instance_id < 0 && (!have_gi || *gi == created.gpu_instance_id)) created.compute_instance_id = *ci;
      continue;
    }
  }
  if (!have_gi) return ParseError{"line 1", "no 'Successfully created GPU instance ID <n> on GPU <n>' line"};
  return created;
}

}  // namespace gpupool::backend::nvsmi
