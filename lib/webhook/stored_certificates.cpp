#include "gpupool/webhook/stored_certificates.h"

#include "gpupool/webhook/rotation.h"

namespace gpupool::webhook {
namespace {

std::string with_newline(std::string pem) {
  if (!pem.empty() && pem.back() != '\n') pem += '\n';
  return pem;
}

bool valid_at(const CertificateTimes& t, Clock::time_point now) { return now >= t.not_before && now < t.not_after; }

NextCertificates start_over(const SubjectNames& wanted, const CertificateOptions& options, Clock::time_point now,
                            std::string reason) {
  NextCertificates out;
  out.stored.bundle = generate_bundle(wanted, options, now);
  out.changed = true;
  out.reason = std::move(reason);
  return out;
}

NextCertificates reissue(StoredCertificates stored, const SubjectNames& wanted, const CertificateOptions& options,
                         Clock::time_point now, std::string reason) {
  ServingCertificate s =
      issue_serving_certificate(stored.bundle.ca_cert_pem, stored.bundle.ca_key_pem, wanted, options, now);
  stored.bundle.cert_pem = std::move(s.cert_pem);
  stored.bundle.key_pem = std::move(s.key_pem);
  return {std::move(stored), true, std::move(reason)};
}

// ca.crt / ca.key: a usable CA pair. Throws CertificateError otherwise.
void check_ca(const StoredCertificates& s) {
  if (!read_certificate(s.bundle.ca_cert_pem).is_ca) throw CertificateError("ca.crt is not a CA");
  if (!key_matches_certificate(s.bundle.ca_cert_pem, s.bundle.ca_key_pem)) {
    throw CertificateError("ca.key does not match ca.crt");
  }
}

// No CA rotation under way: keep, re-issue the serving certificate, or begin one.
NextCertificates steady(const StoredCertificates& current, const SubjectNames& wanted, const CertificateOptions& options,
                        std::chrono::seconds overlap, Clock::time_point now) {
  check_bundle(current.bundle);
  const CertificateInfo ca = read_certificate(current.bundle.ca_cert_pem);
  const CertificateInfo serving = read_certificate(current.bundle.cert_pem);
  const RotationDecision d = decide_rotation(ca, serving, wanted, now);
  if (d.rotate == Rotation::none) return {current, false, {}};
  if (d.rotate == Rotation::serving) return reissue(current, wanted, options, now, "serving certificate re-issued: " + d.reason);
  if (!valid_at(ca.times, now) || !valid_at(serving.times, now)) {
    return start_over(wanted, options, now, "new CA, at once (nothing served is valid any more): " + d.reason);
  }
  // Step 1: trust a new CA next to the old one; keep serving the old CA's
  // certificate, re-issued from the old CA (whose key goes now) when it might
  // not last until step 2.
  NextCertificates out{current, true, "CA rotation, step 1 of 3 (the new CA trusted next to the old one): " + d.reason};
  if (in_last_third(serving.times, now) || serving.times.not_after < now + 2 * overlap) {
    out = reissue(current, wanted, options, now, out.reason + "; the old CA's certificate re-issued");
  }
  const CertificateBundle fresh = generate_bundle(wanted, options, now);
  out.stored.previous_ca_pem = current.bundle.ca_cert_pem;
  out.stored.bundle.ca_cert_pem = fresh.ca_cert_pem;
  out.stored.bundle.ca_key_pem = fresh.ca_key_pem;
  out.stored.step_at = now;
  return out;
}

// A CA rotation under way (ca-previous.crt present).
NextCertificates rotating(const StoredCertificates& current, const SubjectNames& wanted, const CertificateOptions& options,
                          std::chrono::seconds overlap, Clock::time_point now) {
  check_ca(current);
  if (!read_certificate(current.previous_ca_pem).is_ca) throw CertificateError("ca-previous.crt is not a CA");
  if (!key_matches_certificate(current.bundle.cert_pem, current.bundle.key_pem)) {
    throw CertificateError("tls.key does not match tls.crt");
  }
  // A step time far in the future is nonsense (a clock that was off): not waited for.
  const bool due = !current.step_at || now >= *current.step_at + overlap ||
                   *current.step_at > now + overlap + std::chrono::hours(1);
  const CertificateInfo serving = read_certificate(current.bundle.cert_pem);
  if (issued_by(current.bundle.cert_pem, current.previous_ca_pem)) {
    // Between steps 1 and 2: still serving the old CA's certificate.
    const bool expired = !valid_at(serving.times, now);
    if (!due && !expired) return {current, false, {}};
    NextCertificates out = reissue(current, wanted, options, now,
                                   "CA rotation, step 2 of 3 (serving a certificate of the new CA)");
    out.stored.step_at = now;
    return out;
  }
  if (!issued_by(current.bundle.cert_pem, current.bundle.ca_cert_pem)) {
    throw CertificateError("tls.crt was issued by neither ca.crt nor ca-previous.crt");
  }
  if (due) {
    // Step 3: every replica has had time to switch.
    NextCertificates out{current, true, "CA rotation, step 3 of 3 (the old CA no longer trusted)"};
    out.stored.previous_ca_pem.clear();
    out.stored.step_at.reset();
    return out;
  }
  // Between steps 2 and 3: the serving certificate may still need re-issuing
  // (not the CA: its rotation waits for this one to end).
  const RotationDecision d = decide_rotation(read_certificate(current.bundle.ca_cert_pem), serving, wanted, now);
  if (d.rotate == Rotation::none) return {current, false, {}};
  if (d.rotate == Rotation::serving) return reissue(current, wanted, options, now, "serving certificate re-issued: " + d.reason);
  return {current, false, {}};
}

}  // namespace

std::string StoredCertificates::trusted_pem() const {
  return with_newline(bundle.ca_cert_pem) + with_newline(previous_ca_pem);
}

NextCertificates next_certificates(const std::optional<StoredCertificates>& current, const SubjectNames& wanted,
                                   const CertificateOptions& options, std::chrono::seconds overlap,
                                   Clock::time_point now) {
  if (!current) return start_over(wanted, options, now, "no certificates yet");
  try {
    if (current->previous_ca_pem.empty()) {
      NextCertificates out = steady(*current, wanted, options, overlap, now);
      if (!out.stored.previous_ca_pem.empty()) return out;
      out.changed = out.changed || out.stored.step_at.has_value();  // a stray step time is dropped
      out.stored.step_at.reset();
      return out;
    }
    return rotating(*current, wanted, options, overlap, now);
  } catch (const std::exception& e) {
    return start_over(wanted, options, now, std::string("the stored certificates are unusable (") + e.what() + ")");
  }
}

bool servable(const StoredCertificates& stored) {
  try {
    if (!key_matches_certificate(stored.bundle.cert_pem, stored.bundle.key_pem)) return false;
  } catch (const CertificateError&) {
    return false;
  }
  return issued_by(stored.bundle.cert_pem, stored.bundle.ca_cert_pem) ||
         (!stored.previous_ca_pem.empty() && issued_by(stored.bundle.cert_pem, stored.previous_ca_pem));
}

}  // namespace gpupool::webhook
