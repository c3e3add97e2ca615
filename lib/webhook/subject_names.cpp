#include "subject_names.h"

#include <arpa/inet.h>

#include <stdexcept>

namespace gpupool::webhook::detail {

std::optional<std::string> canonical_ip(std::string_view text) {
  const std::string s(text);
  unsigned char bytes[16];
  char out[INET6_ADDRSTRLEN];
  if (inet_pton(AF_INET, s.c_str(), bytes) == 1) {
    if (inet_ntop(AF_INET, bytes, out, sizeof out) != nullptr) return std::string(out);
  } else if (inet_pton(AF_INET6, s.c_str(), bytes) == 1) {
    if (inet_ntop(AF_INET6, bytes, out, sizeof out) != nullptr) return std::string(out);
  }
  return std::nullopt;
}

void validate(const SubjectNames& names) {
  if (names.dns_names.empty() && names.ip_addresses.empty()) {
    throw std::invalid_argument("webhook certificates: no DNS names or IP addresses to certify");
  }
  for (const std::string& name : names.dns_names) {
    bool ok = !name.empty() && name.size() <= 253;
    for (char c : name) {
      ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
                  c == '*');
    }
    if (!ok) throw std::invalid_argument("webhook certificates: invalid DNS name \"" + name + "\"");
  }
  for (const std::string& ip : names.ip_addresses) {
    if (!canonical_ip(ip)) throw std::invalid_argument("webhook certificates: invalid IP address \"" + ip + "\"");
  }
}

std::set<std::string> name_set(const SubjectNames& names) {
  std::set<std::string> out;
  for (const std::string& name : names.dns_names) {
    std::string lower = name;
    for (char& c : lower) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    out.insert("DNS:" + lower);
  }
  for (const std::string& ip : names.ip_addresses) out.insert("IP:" + canonical_ip(ip).value_or(ip));
  return out;
}

}  // namespace gpupool::webhook::detail
