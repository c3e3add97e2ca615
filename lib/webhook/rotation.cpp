#include "gpupool/webhook/rotation.h"

#include "subject_names.h"

namespace gpupool::webhook {

bool in_last_third(const CertificateTimes& times, Clock::time_point now) {
  if (now < times.not_before || now >= times.not_after) return true;
  const auto total = times.not_after - times.not_before;
  const auto remaining = times.not_after - now;
  return remaining * 3 < total;
}

RotationDecision decide_rotation(const CertificateInfo& ca, const CertificateInfo& serving,
                                 const SubjectNames& wanted, Clock::time_point now) {
  if (now >= ca.times.not_after) return {Rotation::all, "the CA certificate has expired"};
  if (now < ca.times.not_before) return {Rotation::all, "the CA certificate is not valid yet"};
  if (in_last_third(ca.times, now)) {
    return {Rotation::all, "less than a third of the CA certificate's validity remains"};
  }
  if (ca.times.not_after < serving.times.not_after) {
    return {Rotation::all, "the CA certificate expires before the serving certificate"};
  }
  if (now >= serving.times.not_after) return {Rotation::serving, "the serving certificate has expired"};
  if (now < serving.times.not_before) return {Rotation::serving, "the serving certificate is not valid yet"};
  if (in_last_third(serving.times, now)) {
    return {Rotation::serving, "less than a third of the serving certificate's validity remains"};
  }
  if (detail::name_set(serving.names) != detail::name_set(wanted)) {
    return {Rotation::serving, "the serving certificate's names differ from the wanted ones"};
  }
  return {};
}

}  // namespace gpupool::webhook
