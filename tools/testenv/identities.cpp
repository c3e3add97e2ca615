#include "identities.h"

#include <sstream>
#include <stdexcept>

#include "files.h"

namespace gpupool::testenv::detail {

namespace {

struct Entry {
  std::string token;
  Identity identity;
};

void check_name(const std::string& s) {
  if (s.empty() || s.find_first_of(",\"\r\n") != std::string::npos) {
    throw std::invalid_argument("identity names and groups must be non-empty and free of commas, quotes and "
                                "line breaks: '" + s + "'");
  }
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) {
    if (!cur.empty()) out.push_back(cur);
  }
  return out;
}

// Parses a line this file wrote; returns false for anything else.
bool parse_line(const std::string& line, Entry& e) {
  size_t a = line.find(',');
  if (a == std::string::npos) return false;
  size_t b = line.find(',', a + 1);
  if (b == std::string::npos) return false;
  size_t c = line.find(',', b + 1);
  e.token = line.substr(0, a);
  e.identity.user = line.substr(a + 1, b - a - 1);
  e.identity.groups.clear();
  if (c != std::string::npos) {
    std::string groups = line.substr(c + 1);
    if (groups.size() >= 2 && groups.front() == '"' && groups.back() == '"') groups = groups.substr(1, groups.size() - 2);
    e.identity.groups = split(groups, ',');
  }
  return !e.token.empty() && !e.identity.user.empty();
}

}  // namespace

std::vector<Identity> default_identities() {
  std::vector<Identity> ids = {
      {kAdminUser, {"system:masters"}},
      {kKwokUser, {"system:masters"}},
      {"system:kube-controller-manager", {}},
      {"system:kube-scheduler", {}},
      {kAlice, {}},
      {kBob, {}},
  };
  for (int i = 0; i < kProvisionedNodes; ++i) {
    ids.push_back({"system:node:" + std::string(kNodeNamePrefix) + std::to_string(i), {"system:nodes"}});
  }
  return ids;
}

TokenFile TokenFile::ensure(const std::string& path, const std::vector<Identity>& identities) {
  std::vector<Entry> entries;
  if (file_exists(path)) {
    std::istringstream in(read_file(path));
    std::string line;
    while (std::getline(in, line)) {
      Entry e;
      if (parse_line(line, e)) entries.push_back(std::move(e));
    }
  }
  for (const auto& id : identities) {
    check_name(id.user);
    for (const auto& g : id.groups) check_name(g);
    bool found = false;
    for (auto& e : entries) {
      if (e.identity.user == id.user) {
        e.identity.groups = id.groups;
        found = true;
      }
    }
    if (!found) entries.push_back({random_token(), id});
  }
  std::string content;
  TokenFile file;
  for (const auto& e : entries) {
    content += e.token + "," + e.identity.user + "," + e.identity.user;
    if (!e.identity.groups.empty()) {
      content += ",\"";
      for (size_t i = 0; i < e.identity.groups.size(); ++i) content += (i ? "," : "") + e.identity.groups[i];
      content += "\"";
    }
    content += "\n";
    file.tokens_[e.identity.user] = e.token;
  }
  write_file(path, content, 0600);
  return file;
}

const std::string& TokenFile::token_for(const std::string& user) const {
  auto it = tokens_.find(user);
  if (it == tokens_.end()) throw std::out_of_range("no token provisioned for user '" + user + "'");
  return it->second;
}

std::string kubeconfig_yaml(const std::string& server, const std::string& ca_pem, const std::string& user,
                            const std::string& token) {
  std::string out;
  out += "apiVersion: v1\n";
  out += "kind: Config\n";
  out += "clusters:\n";
  out += "- name: gpupool-testenv\n";
  out += "  cluster:\n";
  out += "    server: " + server + "\n";
  out += "    certificate-authority-data: " + base64(ca_pem) + "\n";
  out += "users:\n";
  out += "- name: \"" + user + "\"\n";
  out += "  user:\n";
  out += "    token: " + token + "\n";
  out += "contexts:\n";
  out += "- name: gpupool-testenv\n";
  out += "  context:\n";
  out += "    cluster: gpupool-testenv\n";
  out += "    user: \"" + user + "\"\n";
  out += "current-context: gpupool-testenv\n";
  return out;
}

}  // namespace gpupool::testenv::detail
