// libFuzzer target: any bytes, parsed as JSON, through decode_object. Whatever
// decodes must encode and decode again to the same object without errors, as
// a value and as JSON text; an exception caught inside the decoder, or any
// other inconsistency, traps.
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpupool/api/kinds.h"
#include "rapidjson/document.h"

namespace {

// The input: iterative, so deep nesting cannot overflow the stack. Not full
// precision: RapidJSON 1.1's full-precision path calls clz(0) on inputs like
// "0e4000", and its assertions (which throw here) fire on long mantissas with
// large exponents (corpus/decode_object/regression-rapidjson-*).
constexpr unsigned kInputFlags = rapidjson::kParseIterativeFlag;
// Our own output: full precision, so a double reads back exactly as written.
constexpr unsigned kOutputFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseFullPrecisionFlag;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpupool::api;
  rapidjson::Document doc;
  try {
    doc.Parse<kInputFlags>(reinterpret_cast<const char*>(data), size);
  } catch (const gpupool::JsonShapeError&) {
    return 0;  // a RapidJSON assertion in its own parser (rapidjson_config.h): not the decoder's input
  }
  if (doc.HasParseError()) return 0;

  const Decoded<AnyObject> decoded = decode_object(doc);
  check(decoded.value.has_value() == decoded.errors.empty());
  for (const FieldError& e : decoded.errors) {
    // A decoder bug caught by decode_object's guard: still a bug.
    check(!e.reason.empty() && e.reason.rfind("Internal error", 0) != 0);
  }
  if (!decoded.value) return 0;

  rapidjson::Document out;
  const rapidjson::Value encoded = encode(*decoded.value, out.GetAllocator());
  const Decoded<AnyObject> again = decode_object(encoded);
  check(again.errors.empty() && again.value.has_value() && *again.value == *decoded.value);

  const std::string text = to_json(*decoded.value);
  rapidjson::Document reparsed;
  try {
    reparsed.Parse<kOutputFlags>(text.data(), text.size());
  } catch (...) {
    __builtin_trap();  // our own output must parse
  }
  check(!reparsed.HasParseError());
  const Decoded<AnyObject> from_text = decode_object(reparsed);
  check(from_text.errors.empty() && from_text.value.has_value() && *from_text.value == *decoded.value);
  check(to_json(*from_text.value) == text);
  return 0;
}
