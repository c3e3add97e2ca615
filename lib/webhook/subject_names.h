// Private to lib/webhook: SANs checked and put in the forms certificates
// carry and comparisons use.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "gpupool/webhook/certificates.h"

namespace gpupool::webhook::detail {

// "10.0.0.1" / "::1" as inet_ntop writes them; nullopt when not an address.
std::optional<std::string> canonical_ip(std::string_view text);

// Throws std::invalid_argument: no names, a malformed IP, a DNS name that is
// empty, too long, or has characters outside [A-Za-z0-9.*-].
void validate(const SubjectNames& names);

// The names as a set of "DNS:<lower-case name>" and "IP:<canonical>" (a
// malformed IP kept as written, so it compares unequal to any real one).
std::set<std::string> name_set(const SubjectNames& names);

}  // namespace gpupool::webhook::detail
