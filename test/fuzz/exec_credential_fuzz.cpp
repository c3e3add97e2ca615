// libFuzzer target: any bytes as what an exec credential plugin printed
// (kube::parse_exec_credential, for a kubeconfig asking for v1 and for
// v1beta1). It returns credentials or throws ConfigError naming the command,
// nothing else; what it returns has a token or a checked certificate and key;
// an error never quotes the token (checked with the output's status.token
// replaced by a known one).
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gpupool/kube/errors.h"
#include "gpupool/kube/exec_credentials.h"
#include "gpupool/kube/pem.h"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// The output with status.token set to a token no message template contains,
// when it is a JSON object with a status object; otherwise empty.
std::string with_known_token(std::string_view text, const char* token) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  if (doc.HasParseError() || !doc.IsObject()) return "";
  const auto status = doc.FindMember("status");
  if (status == doc.MemberEnd() || !status->value.IsObject()) return "";
  status->value.RemoveMember("token");
  status->value.AddMember("token", rapidjson::StringRef(token), doc.GetAllocator());
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  doc.Accept(writer);
  return std::string(out.GetString(), out.GetSize());
}

void parse_as(const char* api_version, std::string_view text) {
  gpupool::kube::ExecConfig config;
  config.command = "fuzz-plugin";
  config.api_version = api_version;
  try {
    const gpupool::kube::ExecCredentialOutput out = gpupool::kube::parse_exec_credential(config, text);
    const auto& c = out.creds;
    check(!c.bearer_token.empty() || !c.client_cert_pem.empty());
    check(c.client_cert_pem.empty() == c.client_key_pem.empty());
    if (!c.client_cert_pem.empty()) {
      check(!gpupool::kube::check_certificates_pem(c.client_cert_pem).has_value());
      check(!gpupool::kube::check_private_key_pem(c.client_key_pem).has_value());
    }
  } catch (const gpupool::kube::ConfigError& e) {
    check(std::string_view(e.what()).starts_with("exec plugin \"fuzz-plugin\": "));
  }
}

// Whatever else the output holds, an error does not quote its token.
void token_not_quoted(std::string_view text) {
  constexpr std::string_view kToken = "tok-5f0c2e9a-never-quoted";
  if (text.find(kToken) != std::string_view::npos) return;  // the fuzzer copies it elsewhere (apiVersion)
  const std::string output = with_known_token(text, kToken.data());
  if (output.empty()) return;
  gpupool::kube::ExecConfig config;
  config.command = "fuzz-plugin";
  config.api_version = gpupool::kube::kExecApiV1;
  try {
    (void)gpupool::kube::parse_exec_credential(config, output);
  } catch (const gpupool::kube::ConfigError& e) {
    check(std::string_view(e.what()).find(kToken) == std::string_view::npos);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  parse_as(gpupool::kube::kExecApiV1, text);
  parse_as(gpupool::kube::kExecApiV1Beta1, text);
  token_not_quoted(text);
  return 0;
}
