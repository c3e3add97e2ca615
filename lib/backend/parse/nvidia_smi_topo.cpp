// nvidia-smi topo -m: the GPU-to-GPU part of the connection matrix.
#include <algorithm>
#include <map>

#include "gpupool/backend/nvidia_smi_parse.h"
#include "nvidia_smi_text.h"

namespace gpupool::backend::nvsmi {

namespace {

// "GPU3" -> 3
std::optional<int> gpu_label(std::string_view word) {
  if (!text::starts_with(word, "GPU") || word.size() == 3) return std::nullopt;
  return text::to_int32(word.substr(3), 0, kMaxGpus - 1);
}

GpuLink link_from_label(int a, int b, std::string_view label) {
  GpuLink link{a, b, LinkKind::unknown, 0};
  if (text::starts_with(label, "NV")) {
    if (const auto n = text::to_int32(label.substr(2), 1, 1024)) {
      link.kind = LinkKind::nvlink;
      link.nvlinks = *n;
    }
  } else if (label == "PIX") {
    link.kind = LinkKind::pcie_same_switch;
  } else if (label == "PXB") {
    link.kind = LinkKind::pcie_multi_switch;
  } else if (label == "PHB") {
    link.kind = LinkKind::pcie_host_bridge;
  } else if (label == "NODE") {
    link.kind = LinkKind::same_numa;
  } else if (label == "SYS" || label == "SOC") {
    link.kind = LinkKind::cross_numa;
  }
  return link;
}

}  // namespace

ParseResult<std::vector<GpuLink>> parse_topo_matrix(std::string_view input) {
  if (input.size() > kMaxInputBytes) return ParseError{"input", "larger than " + std::to_string(kMaxInputBytes) + " bytes"};
  const std::string clean = text::strip_ansi(input);
  const auto all = text::lines(clean);

  std::vector<int> columns;                      // GPU number of each matrix column
  std::map<int, std::vector<std::string>> rows;  // GPU number -> its cells for `columns`
  bool have_header = false;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::string where = text::line_where(i + 1);
    const auto w = text::words(all[i]);
    if (w.empty()) {
      if (!rows.empty()) break;  // the blank line before the legend
      continue;
    }
    if (w[0] == "Legend:") break;
    const auto first = gpu_label(w[0]);
    if (!have_header) {
      if (!first) continue;  // warnings before the matrix
      have_header = true;
      for (const auto word : w) {
        const auto g = gpu_label(word);
        if (!g) break;
        if (std::find(columns.begin(), columns.end(), *g) != columns.end()) {
          return ParseError{where, "GPU" + std::to_string(*g) + " is twice in the header"};
        }
        columns.push_back(*g);
      }
      continue;
    }
    if (!first) continue;  // a NIC row ("NIC0", "mlx5_0")
    if (std::find(columns.begin(), columns.end(), *first) == columns.end()) {
      return ParseError{where, "row for GPU" + std::to_string(*first) + ", which the header does not name"};
    }
    if (rows.count(*first) != 0) return ParseError{where, "second row for GPU" + std::to_string(*first)};
    if (w.size() < columns.size() + 1) {
      return ParseError{where, "expected " + std::to_string(columns.size()) + " GPU cells, got " + text::quote(all[i])};
    }
    std::vector<std::string> cells;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const std::string_view cell = w[c + 1];
      if (columns[c] == *first && cell != "X") {
        return ParseError{where, "GPU" + std::to_string(*first) + " with itself is " + text::quote(cell) + ", not X"};
      }
      cells.emplace_back(cell);
    }
    rows.emplace(*first, std::move(cells));
  }
  if (!have_header) return ParseError{"line 1", "no header line naming GPU columns (GPU0 GPU1 ...)"};

  std::vector<GpuLink> links;
  for (std::size_t ca = 0; ca < columns.size(); ++ca) {
    for (std::size_t cb = 0; cb < columns.size(); ++cb) {
      const int a = columns[ca], b = columns[cb];
      if (a >= b) continue;
      if (const auto row = rows.find(a); row != rows.end()) {
        links.push_back(link_from_label(a, b, row->second[cb]));
      } else if (const auto other = rows.find(b); other != rows.end()) {
        links.push_back(link_from_label(a, b, other->second[ca]));
      }
    }
  }
  std::sort(links.begin(), links.end(),
            [](const GpuLink& x, const GpuLink& y) { return x.gpu_a != y.gpu_a ? x.gpu_a < y.gpu_a : x.gpu_b < y.gpu_b; });
  return links;
}

}  // namespace gpupool::backend::nvsmi
