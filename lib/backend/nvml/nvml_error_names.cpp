// NVML's names for its return codes (nvml.h, enum nvmlReturn_enum).
#include <array>
#include <string>
#include <string_view>

#include "nvml_library.h"

namespace gpupool::backend::nvml {

std::string error_name(nvmlReturn_t code) {
  static constexpr std::array<std::string_view, 31> names = {
      "NVML_SUCCESS",
      "NVML_ERROR_UNINITIALIZED",
      "NVML_ERROR_INVALID_ARGUMENT",
      "NVML_ERROR_NOT_SUPPORTED",
      "NVML_ERROR_NO_PERMISSION",
      "NVML_ERROR_ALREADY_INITIALIZED",
      "NVML_ERROR_NOT_FOUND",
      "NVML_ERROR_INSUFFICIENT_SIZE",
      "NVML_ERROR_INSUFFICIENT_POWER",
      "NVML_ERROR_DRIVER_NOT_LOADED",
      "NVML_ERROR_TIMEOUT",
      "NVML_ERROR_IRQ_ISSUE",
      "NVML_ERROR_LIBRARY_NOT_FOUND",
      "NVML_ERROR_FUNCTION_NOT_FOUND",
      "NVML_ERROR_CORRUPTED_INFOROM",
      "NVML_ERROR_GPU_IS_LOST",
      "NVML_ERROR_RESET_REQUIRED",
      "NVML_ERROR_OPERATING_SYSTEM",
      "NVML_ERROR_LIB_RM_VERSION_MISMATCH",
      "NVML_ERROR_IN_USE",
      "NVML_ERROR_MEMORY",
      "NVML_ERROR_NO_DATA",
      "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED",
      "NVML_ERROR_INSUFFICIENT_RESOURCES",
      "NVML_ERROR_FREQ_NOT_SUPPORTED",
      "NVML_ERROR_ARGUMENT_VERSION_MISMATCH",
      "NVML_ERROR_DEPRECATED",
      "NVML_ERROR_NOT_READY",
      "NVML_ERROR_GPU_NOT_FOUND",
      "NVML_ERROR_INVALID_STATE",
      "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED",
  };
  if (code >= 0 && static_cast<std::size_t>(code) < names.size()) return std::string(names[static_cast<std::size_t>(code)]);
  if (code == NVML_ERROR_UNKNOWN) return "NVML_ERROR_UNKNOWN";
  return "NVML_ERROR_" + std::to_string(code);
}

}  // namespace gpupool::backend::nvml
