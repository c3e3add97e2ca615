#include "gpupool/testenv/serving_cert.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

#include "files.h"
#include "pki.h"

namespace gpupool::testenv {
namespace {

bool is_ip(const std::string& host) {
  unsigned char addr[sizeof(in6_addr)];
  return ::inet_pton(AF_INET, host.c_str(), addr) == 1 || ::inet_pton(AF_INET6, host.c_str(), addr) == 1;
}

std::string subject_alt_names(const std::vector<std::string>& hosts) {
  if (hosts.empty()) throw std::invalid_argument("issue_serving_cert: no host");
  std::string out;
  for (const std::string& host : hosts) {
    const bool plain = !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == ':' || c == '*';
    });
    if (!plain) throw std::invalid_argument("issue_serving_cert: bad host '" + host + "'");
    if (!out.empty()) out += ",";
    out += (is_ip(host) ? "IP:" : "DNS:") + host;
  }
  return out;
}

}  // namespace

ServingCert issue_serving_cert(const ControlPlane& cluster, const std::vector<std::string>& hosts) {
  const std::string sans = subject_alt_names(hosts);
  const std::filesystem::path ca_dir = std::filesystem::path(cluster.ca_file()).parent_path();
  const detail::Pki pki = detail::pki_files(ca_dir.string());
  const std::filesystem::path dir = ca_dir / ("issued-" + detail::random_token());
  std::filesystem::create_directory(dir);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all);
  const std::string cnf = (dir / "openssl.cnf").string();
  const std::string key = (dir / "server.key").string();
  const std::string csr = (dir / "server.csr").string();
  const std::string crt = (dir / "server.crt").string();
  ServingCert out;
  try {
    detail::write_file(cnf, "[req]\ndistinguished_name = dn\nprompt = no\n\n[dn]\nCN = gpupool-testenv-server\n\n"
                            "[server_ext]\nbasicConstraints = critical,CA:FALSE\n"
                            "keyUsage = critical,digitalSignature,keyEncipherment\nextendedKeyUsage = serverAuth\n"
                            "subjectKeyIdentifier = hash\nauthorityKeyIdentifier = keyid\nsubjectAltName = " +
                                sans + "\n");
    detail::make_ec_key(key);
    detail::run_openssl({"req", "-new", "-key", key, "-config", cnf, "-out", csr});
    detail::run_openssl({"x509", "-req", "-in", csr, "-CA", pki.ca_crt, "-CAkey", pki.ca_key, "-set_serial",
                         "0x" + detail::random_token(), "-days", "365", "-extfile", cnf, "-extensions", "server_ext",
                         "-out", crt});
    out.cert_pem = detail::read_file(crt);
    out.key_pem = detail::read_file(key);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    throw;
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return out;
}

}  // namespace gpupool::testenv
