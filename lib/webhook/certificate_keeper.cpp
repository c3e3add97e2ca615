#include "gpupool/webhook/certificate_keeper.h"

namespace gpupool::webhook {

KeptBundle keep_bundle(const std::optional<CertificateBundle>& existing, const SubjectNames& wanted,
                       const CertificateOptions& options, Clock::time_point now) {
  KeptBundle out;
  if (existing) {
    try {
      check_bundle(*existing);
      const RotationDecision d = decide_rotation(read_certificate(existing->ca_cert_pem),
                                                 read_certificate(existing->cert_pem), wanted, now);
      if (d.rotate == Rotation::none) {
        out.bundle = *existing;
        return out;
      }
      if (d.rotate == Rotation::serving) {
        const ServingCertificate s =
            issue_serving_certificate(existing->ca_cert_pem, existing->ca_key_pem, wanted, options, now);
        out.bundle = *existing;
        out.bundle.cert_pem = s.cert_pem;
        out.bundle.key_pem = s.key_pem;
        out.changed = true;
        out.reason = "serving certificate re-issued: " + d.reason;
        return out;
      }
      out.reason = "new CA: " + d.reason;
    } catch (const std::exception& e) {
      out.reason = std::string("the stored certificates are unusable (") + e.what() + ")";
    }
  } else {
    out.reason = "no certificates yet";
  }
  out.bundle = generate_bundle(wanted, options, now);
  out.changed = true;
  return out;
}

}  // namespace gpupool::webhook
