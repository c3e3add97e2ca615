// Force-included into every project translation unit (cmake/ProjectDefaults.cmake)
// before any RapidJSON header. RapidJSON checks value types with assert(),
// which aborts in debug builds and is undefined behaviour with NDEBUG. A
// malformed object from the API server must never crash a controller, so a
// failed check throws instead, and reconcile loops turn it into an error.
#pragma once

#include <stdexcept>

namespace gpupool {

// A JSON value had another type or shape than the code reading it expected.
class JsonShapeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gpupool

#define RAPIDJSON_ASSERT(x) \
  (static_cast<bool>(x) ? void(0) : throw ::gpupool::JsonShapeError("JSON value of unexpected type or shape: " #x))
