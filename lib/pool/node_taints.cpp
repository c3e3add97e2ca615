#include "gpupool/pool/node_taints.h"

#include <algorithm>
#include <sstream>

#include "gpupool/api/enum_names.h"

namespace gpupool::pool {
namespace {

std::string line_of(const NodeTaint& t) { return t.key + "=" + t.value + ":" + t.effect; }

std::vector<NodeTaint> parse_recorded(const std::string& text) {
  std::vector<NodeTaint> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    const auto colon = line.rfind(':');
    if (eq == std::string::npos || colon == std::string::npos || colon < eq) continue;
    out.push_back({line.substr(0, eq), line.substr(eq + 1, colon - eq - 1), line.substr(colon + 1)});
  }
  return out;
}

bool same_slot(const NodeTaint& a, const NodeTaint& b) { return a.key == b.key && a.effect == b.effect; }

}  // namespace

std::optional<TaintChange> taint_change(const std::vector<NodeTaint>& current, const std::string& recorded,
                                        const std::vector<api::Taint>& desired) {
  std::vector<NodeTaint> want;
  for (const auto& t : desired) want.push_back({t.key, t.value, std::string(api::to_string(t.effect))});
  const std::vector<NodeTaint> ours = parse_recorded(recorded);

  TaintChange out;
  std::vector<NodeTaint> still_ours;
  for (const auto& t : current) {
    const bool was_ours = std::find(ours.begin(), ours.end(), t) != ours.end();
    if (!was_ours) {
      out.taints.push_back(t);  // someone else's: always kept
      continue;
    }
    const auto w = std::find_if(want.begin(), want.end(), [&](const NodeTaint& x) { return same_slot(x, t); });
    if (w == want.end()) continue;  // ours and no longer wanted: removed
    out.taints.push_back(*w);       // ours, value updated if it changed
    still_ours.push_back(*w);
  }
  for (const auto& w : want) {
    const bool present = std::any_of(out.taints.begin(), out.taints.end(), [&](const NodeTaint& x) { return same_slot(x, w); });
    if (present) continue;  // ours already, or someone else's with that key and effect (left alone)
    out.taints.push_back(w);
    still_ours.push_back(w);
  }
  for (const auto& t : still_ours) out.recorded += line_of(t) + "\n";
  if (out.taints == current && out.recorded == recorded) return std::nullopt;
  return out;
}

}  // namespace gpupool::pool
