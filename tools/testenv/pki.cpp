#include "pki.h"

#include <sys/stat.h>

#include <stdexcept>

#include "files.h"
#include "gpupool/testenv/process.h"

namespace gpupool::testenv::detail {

namespace {

constexpr const char* kOpensslConfig = R"([req]
distinguished_name = dn
prompt = no

[dn]
CN = gpupool-testenv

[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,digitalSignature,keyCertSign,cRLSign
subjectKeyIdentifier = hash

[server_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
subjectAltName = IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:10.96.0.1
)";

}  // namespace

void run_openssl(const std::vector<std::string>& args) {
  CommandResult r = run_command("openssl", args, "", std::chrono::seconds(60));
  if (r.status != 0) {
    std::string cmd = "openssl";
    for (const auto& a : args) cmd += " " + a;
    throw std::runtime_error("certificate generation failed (" + cmd + ", exit " + std::to_string(r.status) +
                             "): " + r.err + r.out);
  }
}

void make_ec_key(const std::string& path) {
  run_openssl({"genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path});
  ::chmod(path.c_str(), 0600);
}

Pki pki_files(const std::string& dir) {
  return Pki{dir + "/ca.crt", dir + "/ca.key", dir + "/apiserver.crt", dir + "/apiserver.key", dir + "/sa.key",
             dir + "/sa.pub"};
}

Pki ensure_pki(const std::string& dir) {
  ::mkdir(dir.c_str(), 0700);
  const Pki p = pki_files(dir);
  std::string cnf = dir + "/openssl.cnf";
  write_file(cnf, kOpensslConfig);

  bool new_ca = false;
  if (!file_exists(p.ca_crt) || !file_exists(p.ca_key)) {
    make_ec_key(p.ca_key);
    run_openssl({"req", "-x509", "-new", "-key", p.ca_key, "-subj", "/CN=gpupool-testenv-ca", "-days", "3650",
                 "-config", cnf, "-extensions", "ca_ext", "-out", p.ca_crt});
    new_ca = true;
  }
  if (new_ca || !file_exists(p.serving_crt) || !file_exists(p.serving_key)) {
    std::string csr = dir + "/apiserver.csr";
    make_ec_key(p.serving_key);
    run_openssl({"req", "-new", "-key", p.serving_key, "-subj", "/CN=kube-apiserver", "-config", cnf, "-out", csr});
    run_openssl({"x509", "-req", "-in", csr, "-CA", p.ca_crt, "-CAkey", p.ca_key, "-set_serial",
                 "0x" + random_token(), "-days", "3650", "-extfile", cnf, "-extensions", "server_ext", "-out",
                 p.serving_crt});
  }
  if (!file_exists(p.sa_key) || !file_exists(p.sa_pub)) {
    run_openssl({"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", p.sa_key});
    ::chmod(p.sa_key.c_str(), 0600);
    run_openssl({"pkey", "-in", p.sa_key, "-pubout", "-out", p.sa_pub});
  }
  return p;
}

}  // namespace gpupool::testenv::detail
