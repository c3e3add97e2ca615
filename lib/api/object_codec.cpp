#include "object_codec.h"

namespace gpupool::api {

void decode_type_meta(ObjectDecoder& d, const KindInfo& info) {
  std::string api_version;
  std::string kind;
  const std::size_t before = d.errors().size();
  d.required("apiVersion", api_version);
  d.required("kind", kind);
  if (d.errors().size() != before) return;
  if (api_version != info.api_version) {
    json::add_error(d.errors(), d.path().field("apiVersion"),
                    "Unsupported value: " + json::quote(api_version) +
                        ": supported values: " + json::quote(info.api_version));
  }
  if (kind != info.kind) {
    json::add_error(d.errors(), d.path().field("kind"),
                    "Unsupported value: " + json::quote(kind) + ": supported values: " + json::quote(info.kind));
  }
}

void record_internal_error(FieldErrors& errors) noexcept {
  try {
    std::string reason = "Internal error: decoding failed";
    try {
      throw;
    } catch (const std::exception& e) {
      reason += std::string(": ") + e.what();
    } catch (...) {
    }
    errors.push_back(FieldError{"", std::move(reason)});
  } catch (...) {
    // Out of memory: the caller has no value to hand out either way.
  }
}

}  // namespace gpupool::api
