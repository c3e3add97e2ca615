// gpupool-faultproxy: the fault-injecting proxy as a process, controlled
// through its control port (see control_commands.h), for tests not written
// in C++ and for trying a component against a flaky apiserver by hand.
//
//   gpupool-faultproxy --upstream https://127.0.0.1:6443 --upstream-ca ca.crt
//       --cert proxy.crt --key proxy.key --listen 127.0.0.1:7443 --control 127.0.0.1:7444 --seed 42
//   curl -X POST 'http://127.0.0.1:7444/errors?status=429&share=0.2'
//
// Prints one line "listening URL control CONTROL_URL" on stdout once it
// serves, and runs until SIGINT or SIGTERM.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>

#include "gpupool/common/log.h"
#include "gpupool/common/shutdown.h"
#include "gpupool/faultproxy/fault_proxy.h"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
  gpupool::ShutdownSignal shutdown;  // first: threads started later inherit the signal mask

  CLI::App app{"gpupool-faultproxy: a fault-injecting proxy in front of a kube-apiserver"};
  std::string upstream, upstream_ca, cert, key, control;
  std::string listen = "127.0.0.1:0", log_format = "text", log_level = "info";
  std::uint64_t seed = 1;
  app.add_option("--upstream", upstream, "URL of the apiserver, https://HOST:PORT")->required();
  app.add_option("--upstream-ca", upstream_ca, "PEM file of the CA(s) trusted for the upstream")
      ->check(CLI::ExistingFile);
  app.add_option("--cert", cert, "PEM serving certificate (chain); without it the proxy speaks plain HTTP")
      ->check(CLI::ExistingFile);
  app.add_option("--key", key, "PEM key of the serving certificate")->check(CLI::ExistingFile);
  app.add_option("--listen", listen, "HOST:PORT to serve on (port 0: any free one)");
  app.add_option("--control", control, "HOST:PORT of the control port (empty: none)");
  app.add_option("--seed", seed, "seed of the fault draws");
  app.add_option("--log-format", log_format, "Log format")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--log-level", log_level, "Log level")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
  CLI11_PARSE(app, argc, argv);

  gpupool::log::init(*gpupool::log::parse_format(log_format), log_level);
  try {
    gpupool::faultproxy::Options options;
    options.upstream_url = upstream;
    if (!upstream_ca.empty()) options.upstream_ca_pem = read_file(upstream_ca);
    if (!cert.empty()) options.cert_pem = read_file(cert);
    if (!key.empty()) options.key_pem = read_file(key);
    options.listen = listen;
    options.control_listen = control;
    options.seed = seed;
    gpupool::faultproxy::FaultProxy proxy(options);
    spdlog::info("forwarding {} to {} (seed {}){}", proxy.url(), upstream, seed,
                 proxy.control_port() != 0 ? ", control " + proxy.control_url() : "");
    std::printf("listening %s control %s\n", proxy.url().c_str(),
                proxy.control_port() != 0 ? proxy.control_url().c_str() : "-");
    std::fflush(stdout);
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    cv.wait(lock, shutdown.token(), [] { return false; });
    proxy.stop();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
  spdlog::info("shutting down (signal {})", shutdown.signal());
  return 0;
}
