// What the webhook's certificates should be, given what the Secret holds:
// kept when still good; the serving certificate re-issued from the same CA
// when it nears expiry or its names changed (the caBundle stays); everything
// new when there is nothing usable or the CA itself must go (rotation.h).
// Pure but for key generation.
#pragma once

#include <optional>
#include <string>

#include "gpupool/webhook/certificates.h"
#include "gpupool/webhook/rotation.h"

namespace gpupool::webhook {

struct KeptBundle {
  CertificateBundle bundle;
  bool changed = false;  // write it back
  std::string reason;    // why it changed ("no certificates yet", "serving certificate expires ...")
};

KeptBundle keep_bundle(const std::optional<CertificateBundle>& existing, const SubjectNames& wanted,
                       const CertificateOptions& options = {}, Clock::time_point now = Clock::now());

}  // namespace gpupool::webhook
