// nvidia-smi -L: GPU lines and their MIG device lines.
#include "gpupool/backend/nvidia_smi_parse.h"
#include "nvidia_smi_text.h"

namespace gpupool::backend::nvsmi {

namespace {

// "... (UUID: X)" -> X; "" when `s` has no UUID part. `rest` gets what comes before.
std::string_view take_uuid(std::string_view s, std::string_view& rest) {
  const auto pos = s.rfind("(UUID:");
  if (pos == std::string_view::npos) {
    rest = s;
    return {};
  }
  rest = text::trim(s.substr(0, pos));
  std::string_view uuid = s.substr(pos + 6);
  const auto close = uuid.find(')');
  return text::trim(uuid.substr(0, close));
}

}  // namespace

ParseResult<std::vector<ListedGpu>> parse_list(std::string_view input) {
  if (input.size() > kMaxInputBytes) return ParseError{"input", "larger than " + std::to_string(kMaxInputBytes) + " bytes"};
  std::vector<ListedGpu> gpus;
  std::size_t rows = 0;
  const auto all = text::lines(input);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::string_view line = text::trim(all[i]);
    const std::string where = text::line_where(i + 1);
    if (line.empty()) continue;
    if (++rows > kMaxRows) return ParseError{where, "more than " + std::to_string(kMaxRows) + " lines"};
    if (text::starts_with(line, "GPU ")) {
      const auto colon = line.find(':');
      const auto index = text::to_int32(line.substr(4, colon == std::string_view::npos ? 0 : colon - 4), 0, kMaxGpus - 1);
      if (colon == std::string_view::npos || !index) {
        return ParseError{where, "expected 'GPU <index>: <name> (UUID: GPU-...)', got " + text::quote(line)};
      }
      ListedGpu gpu;
      gpu.index = *index;
      std::string_view name;
      gpu.uuid = std::string(take_uuid(line.substr(colon + 1), name));
      // Old drivers print "(S/N: ...)" as well or instead.
      if (const auto sn = name.find(" (S/N:"); sn != std::string_view::npos) name = text::trim(name.substr(0, sn));
      gpu.name = std::string(name);
      if (gpu.name.empty()) return ParseError{where, "GPU line without a name: " + text::quote(line)};
      gpus.push_back(std::move(gpu));
      continue;
    }
    if (text::starts_with(line, "MIG ")) {
      if (gpus.empty()) return ParseError{where, "MIG device line before any GPU line: " + text::quote(line)};
      std::string_view head;
      const std::string_view uuid = take_uuid(line, head);
      const auto w = text::words(head);
      // MIG <profile> Device <n>:
      if (w.size() != 4 || w[2] != "Device" || w[3].back() != ':' || uuid.empty()) {
        return ParseError{where, "expected 'MIG <profile> Device <n>: (UUID: MIG-...)', got " + text::quote(line)};
      }
      const auto device = text::to_int32(w[3].substr(0, w[3].size() - 1), 0, 1 << 20);
      if (!device) return ParseError{where, "not a device number: " + text::quote(w[3])};
      gpus.back().mig_devices.push_back(ListedMigDevice{std::string(w[1]), *device, std::string(uuid)});
      continue;
    }
    return ParseError{where, "neither a GPU nor a MIG device line: " + text::quote(line)};
  }
  return gpus;
}

}  // namespace gpupool::backend::nvsmi
