// Standard base64 (RFC 4648 alphabet, with padding), as kubeconfig "-data"
// fields and ExecCredential certificate data use it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpupool::kube {

std::string base64_encode(std::string_view bytes);

// Decodes `text`, ignoring ASCII whitespace (YAML folding can insert line
// breaks and spaces). std::nullopt when it is not valid base64: a character
// outside the alphabet, misplaced or missing padding, or a truncated group.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace gpupool::kube
