// The parameters of a URL query string ("a=1&b=x%2Fy"), for the control port.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace gpupool::faultproxy {

// Splits on '&' and the first '=' of each pair, decodes %XX and '+' (a
// space); a later repeat of a name wins; a name without '=' gets "". Throws
// std::invalid_argument for a bad %-escape.
std::map<std::string, std::string> parse_query(std::string_view query);

}  // namespace gpupool::faultproxy
