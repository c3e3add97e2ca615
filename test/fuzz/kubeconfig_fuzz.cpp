// libFuzzer target: any bytes as a kubeconfig file (kubeconfig::parse), then
// merged with itself as $KUBECONFIG would merge two files, then turned into a
// RestConfig for its current context. Parsing either succeeds or throws
// ConfigError, and so does to_rest_config; nothing else may escape. Contexts
// whose cluster or user names a file (certificate-authority, client-key,
// tokenFile, ...) are not built: the fuzzer must not read files of its choosing.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpupool/kube/errors.h"
#include "gpupool/kube/kubeconfig.h"

namespace {

namespace kc = gpupool::kube::kubeconfig;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// Whether building `context` could touch the file system.
bool reads_files(const kc::Config& config, const std::string& context) {
  const auto ctx = config.contexts.find(context);
  if (ctx == config.contexts.end()) return false;
  if (const auto c = config.clusters.find(ctx->second.cluster); c != config.clusters.end()) {
    if (!c->second.certificate_authority.empty()) return true;
  }
  if (const auto u = config.users.find(ctx->second.user); u != config.users.end()) {
    const kc::User& user = u->second;
    if (!user.token_file.empty() || !user.client_certificate.empty() || !user.client_key.empty()) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string file = "/nonexistent/fuzz/kubeconfig";
  kc::Config config;
  try {
    config = kc::parse(text, file);
  } catch (const gpupool::kube::ConfigError& e) {
    // Every message names the file it is about.
    check(std::string_view(e.what()).find(file) != std::string_view::npos);
    return 0;
  }
  check(config.files == std::vector<std::string>{file});
  check(config.current_context.empty() == config.current_context_file.empty());
  for (const auto& [name, cluster] : config.clusters) check(!name.empty() && cluster.origin.file == file);
  for (const auto& [name, user] : config.users) check(!name.empty() && user.origin.file == file);
  for (const auto& [name, context] : config.contexts) check(!name.empty() && context.origin.file == file);

  // Merged with a copy of itself: the first file's entries win, so nothing
  // changes but the list of files.
  kc::Config merged = kc::merge({config, config});
  check(merged.files.size() == 2);
  check(merged.clusters.size() == config.clusters.size() && merged.users.size() == config.users.size() &&
        merged.contexts.size() == config.contexts.size());
  check(merged.current_context == config.current_context);

  if (config.current_context.empty() || reads_files(config, config.current_context)) return 0;
  try {
    const gpupool::kube::RestConfig rc = kc::to_rest_config(merged, std::nullopt);
    std::string scheme = rc.server.substr(0, rc.server.find("://"));
    for (char& c : scheme) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    check(scheme == "https" || scheme == "http");
    check(!rc.default_namespace.empty());
  } catch (const gpupool::kube::ConfigError& e) {
    check(e.what()[0] != '\0');
  }
  return 0;
}
