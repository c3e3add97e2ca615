// The webhook's certificates as the controller keeps them in its Secret, and
// the next state of that Secret: a pure decision (but for key generation)
// that the leader applies once per check, one step at a time, so that a CA
// rotation never leaves a replica serving a certificate the API server does
// not trust.
//
// The Secret (keys):            ca.crt ca.key tls.crt tls.key [ca-previous.crt]
// The caBundle (trusted_pem()): ca.crt, then ca-previous.crt when present.
// Served by every replica:      tls.crt / tls.key.
// Invariant: tls.crt is signed by ca.crt or ca-previous.crt.
//
// Serving certificate rotation (rotation.h: a third of its validity left, or
// names changed): tls.crt re-issued from ca.crt in one step; the caBundle
// stays.
//
// CA rotation (a third of the CA's validity left), in three steps, each at
// least `overlap` after the one before (step_at records when the last one
// was written):
//   1. trust:  ca.crt/ca.key = a new CA, ca-previous.crt = the old CA,
//              tls.crt still signed by the old CA, which the new caBundle
//              still holds (re-issued from it now, its key's last use, when
//              less than a third of its validity or less than 2 x overlap
//              remains): the caBundle becomes new + old.
//   2. serve:  tls.crt re-issued from the new CA (ca-previous.crt kept): the
//              caBundle, already new + old, trusts what every replica serves,
//              whether it has switched yet or not.
//   3. settle: ca-previous.crt dropped once every replica has had `overlap`
//              to switch: the caBundle becomes the new CA alone.
// Step 1 is taken as soon as the CA is due. `overlap` must cover the time
// for a written caBundle to reach the API server (before step 2) and for
// every replica to re-read the Secret (before step 3); the controller uses
// twice its check interval. Should the served certificate expire before step
// 2 is due, step 2 is taken at once.
//
// Starting over (no Secret yet, or what it holds is unusable, or the CA or
// the served certificate has already expired so that nothing in it can be
// served anyway): a new CA and serving certificate at once, without overlap.
#pragma once

#include <optional>
#include <string>

#include "gpupool/webhook/certificates.h"

namespace gpupool::webhook {

struct StoredCertificates {
  CertificateBundle bundle;     // ca.crt ca.key tls.crt tls.key
  std::string previous_ca_pem;  // ca-previous.crt: the CA being retired; empty outside a CA rotation
  // When the last step of a CA rotation was written; unset outside one.
  std::optional<Clock::time_point> step_at;

  // The caBundle: ca.crt followed by ca-previous.crt (each ending in '\n').
  std::string trusted_pem() const;

  bool operator==(const StoredCertificates&) const = default;
};

struct NextCertificates {
  StoredCertificates stored;
  bool changed = false;  // write it back
  std::string reason;    // why it changed, for logs; empty when not
};

NextCertificates next_certificates(const std::optional<StoredCertificates>& current, const SubjectNames& wanted,
                                   const CertificateOptions& options, std::chrono::seconds overlap,
                                   Clock::time_point now = Clock::now());

// Whether a replica can serve `stored` as it is: tls.crt and tls.key parse
// and match, and tls.crt is signed by a CA of the caBundle. It may still be
// due for rotation.
bool servable(const StoredCertificates& stored);

}  // namespace gpupool::webhook
