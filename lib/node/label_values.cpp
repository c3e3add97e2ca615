// Label value spelling: Kubernetes' rules, GFD's sanitise and names.
#include <cctype>

#include "gpupool/node/node_labels.h"

namespace gpupool::node {
namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

}  // namespace

// Kubernetes label values (apimachinery validation IsValidLabelValue):
// (([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?, at most 63 characters.
std::string label_value(std::string_view raw) {
  std::string out;
  bool in_space = false;
  for (char c : raw) {
    if (is_space(c)) {
      in_space = true;
      continue;
    }
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') continue;
    if (in_space && !out.empty()) out += '-';
    in_space = false;
    out += c;
  }
  if (out.size() > 63) out.resize(63);
  std::size_t begin = 0;
  while (begin < out.size() && !is_alnum(out[begin])) ++begin;
  std::size_t end = out.size();
  while (end > begin && !is_alnum(out[end - 1])) --end;
  return out.substr(begin, end - begin);
}

// resource.go sanitise(): regexp "[^A-Za-z0-9-_. ]" removed, then
// strings.Join(strings.Fields(input), "-").
std::string gfd_sanitise(std::string_view raw) {
  std::string out;
  bool pending_sep = false;
  for (char c : raw) {
    // Only ' ' survives the regexp (tabs and the like are dropped), and the
    // fields it separates are joined with '-'.
    if (c == ' ') {
      pending_sep = true;
      continue;
    }
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') continue;
    if (pending_sep && !out.empty()) out += '-';
    pending_sep = false;
    out += c;
  }
  return out;
}

// resource.go getArchFamily().
std::string gfd_arch_family(int compute_major, int compute_minor) {
  switch (compute_major) {
    case 1: return "tesla";
    case 2: return "fermi";
    case 3: return "kepler";
    case 5: return "maxwell";
    case 6: return "pascal";
    case 7: return compute_minor < 5 ? "volta" : "turing";
    case 8: return compute_minor < 9 ? "ampere" : "ada-lovelace";
    case 9: return "hopper";
    case 10:
    case 12: return "blackwell";
    case 13: return "rubin";
    default: return "undefined";
  }
}

// internal/resource/nvml-mig-device.go GetName(): strings.ReplaceAll(profile, "+", ".").
std::string mig_device_name(std::string_view profile) {
  std::string out(profile);
  for (char& c : out) {
    if (c == '+') c = '.';
  }
  return out;
}

}  // namespace gpupool::node
