#include "sax_support.h"

#include <rapidjson/error/en.h>

namespace gpupool::kube::detail {

std::string describe_parse_error(std::string_view what, const rapidjson::ParseResult& result,
                                 std::string_view handler_error, std::size_t base_offset) {
  std::string text(what);
  text += ": ";
  if (result.Code() == rapidjson::kParseErrorTermination && !handler_error.empty()) {
    text += handler_error;
  } else {
    text += "malformed JSON (";
    text += rapidjson::GetParseError_En(result.Code());
    text += ")";
  }
  text += " at byte " + std::to_string(base_offset + result.Offset());
  return text;
}

}  // namespace gpupool::kube::detail
