// The result of parsing one text value (a quantity, a duration, a time): the
// value, or the reason the text is not one, worded for a FieldError.
#pragma once

#include <optional>
#include <string>

namespace gpupool::api {

template <class T>
struct Parsed {
  std::optional<T> value;  // set on success
  std::string error;       // set on failure, e.g. "time: unknown unit \"d\" in duration \"1d\""

  explicit operator bool() const { return value.has_value(); }
};

}  // namespace gpupool::api
