// Private to lib/api: quantities written as JSON numbers. A number's text is
// what the decoder stores and the encoder turns back into the same number, so
// decode(encode(x)) keeps it: integers as decimal digits, integral doubles
// within int64 as integers, larger ones in RapidJSON's shortest form.
#pragma once

#include <string>
#include <string_view>

#include "rapidjson/document.h"

namespace gpupool::api {

// True for integers, and for doubles without a fraction.
bool json_number_is_integral(const rapidjson::Value& number);
// The text of a number value ("4", "-2", "1e21").
std::string json_number_text(const rapidjson::Value& number);
// The number `text` (as json_number_text wrote it) stands for; a string value
// if it is none.
rapidjson::Value json_number_from_text(std::string_view text, rapidjson::Document::AllocatorType& alloc);

}  // namespace gpupool::api
