// The JSON spelling of each API enum. Every enum in gpupool::api declares its
// table with a constexpr `enum_names(E)` overload, found by lookup on E; the
// helpers here then convert both ways:
//   to_string(SharingMode::time_slicing) == "timeSlicing"
//   parse_enum<SharingMode>("mps") == SharingMode::mps, std::nullopt if unknown.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

namespace gpupool::api {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

template <class E>
concept ApiEnum = std::is_enum_v<E> && requires(E e) {
  { enum_names(e) } -> std::convertible_to<std::span<const EnumName<E>>>;
};

template <ApiEnum E>
constexpr std::span<const EnumName<E>> enum_values() {
  return enum_names(E{});
}

template <ApiEnum E>
constexpr std::string_view to_string(E e) {
  for (const auto& n : enum_values<E>()) {
    if (n.value == e) return n.name;
  }
  return {};
}

template <ApiEnum E>
constexpr std::optional<E> parse_enum(std::string_view name) {
  for (const auto& n : enum_values<E>()) {
    if (n.name == name) return n.value;
  }
  return std::nullopt;
}

}  // namespace gpupool::api

// Declares the table of an enum: GPUPOOL_API_ENUM_NAMES(Vendor, {Vendor::amd, "amd"}, ...).
#define GPUPOOL_API_ENUM_NAMES(E, ...)                                 \
  inline constexpr ::gpupool::api::EnumName<E> E##_names[] = {__VA_ARGS__}; \
  constexpr std::span<const ::gpupool::api::EnumName<E>> enum_names(E) { return E##_names; }
