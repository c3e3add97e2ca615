// When the webhook's certificates must be replaced: a pure decision over what
// read_certificate (certificates.h) reports and the names the Service has now.
//
//   serving certificate replaced (same CA, caBundle unchanged) when
//     - less than a third of its validity remains, it has expired, or it is
//       not valid yet;
//     - its SANs differ from the wanted ones (compared as sets; DNS names
//       case-insensitively, IPs canonically);
//   CA and serving certificate replaced (caBundle changes) when
//     - less than a third of the CA's validity remains, it has expired, or
//       it is not valid yet;
//     - the CA expires before the serving certificate would.
//
// With the defaults (CA 5 years, serving 1 year) the serving certificate is
// re-issued 4 months before it expires, and a new CA is made 20 months before
// the old one expires, so a serving certificate never outlives its CA.
#pragma once

#include <string>

#include "gpupool/webhook/certificates.h"

namespace gpupool::webhook {

enum class Rotation {
  none,
  serving,  // re-issue the serving certificate from the existing CA
  all,      // a new CA and a new serving certificate
};

struct RotationDecision {
  Rotation rotate = Rotation::none;
  std::string reason;  // for logs and Events; empty when none
};

RotationDecision decide_rotation(const CertificateInfo& ca, const CertificateInfo& serving,
                                 const SubjectNames& wanted, Clock::time_point now);

inline bool needs_rotation(const CertificateInfo& ca, const CertificateInfo& serving, const SubjectNames& wanted,
                           Clock::time_point now) {
  return decide_rotation(ca, serving, wanted, now).rotate != Rotation::none;
}

// Less than a third of [not_before, not_after] remains at `now`, or `now` is
// outside it.
bool in_last_third(const CertificateTimes& times, Clock::time_point now);

}  // namespace gpupool::webhook
