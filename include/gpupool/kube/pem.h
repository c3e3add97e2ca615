// Load-time checks of PEM material, so a broken certificate or key is reported
// against the field that held it instead of failing later in the TLS handshake.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpupool::kube {

// std::nullopt when `pem` holds at least one X.509 certificate and nothing
// unparsable; otherwise why not. The reason never quotes the input.
std::optional<std::string> check_certificates_pem(std::string_view pem);

// std::nullopt when `pem` holds an unencrypted private key; otherwise why not.
// The reason never quotes the input.
std::optional<std::string> check_private_key_pem(std::string_view pem);

}  // namespace gpupool::kube
