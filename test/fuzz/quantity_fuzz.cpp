// libFuzzer target: any bytes as a quantity. A valid quantity must re-parse
// from its text to an equal one, agree with itself under compare(), and keep
// its derived values consistent; an invalid one must say why.
#include <compare>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

#include "gpupool/api/quantity.h"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpupool::api;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = parse_quantity(text);
  if (!parsed) {
    check(!parsed.error.empty());
    return 0;
  }
  const Quantity& q = *parsed.value;
  check(q.text() == text);
  const auto again = parse_quantity(q.text());
  check(again.value.has_value() && *again.value == q);
  check(compare(q, *again.value) == std::strong_ordering::equal);

  const Quantity zero;
  check(q.is_zero() == (compare(q, zero) == std::strong_ordering::equal));
  check(q.is_negative() == (compare(q, zero) == std::strong_ordering::less));
  check(!(q.is_zero() && q.is_negative()));
  if (const auto whole = q.whole_value()) {
    check(q.is_whole_number());
    const Quantity same = Quantity::from_int(*whole);
    check(compare(q, same) == std::strong_ordering::equal);
    check((*whole < 0) == q.is_negative());
  }
  if (const auto milli = q.milli_value()) {
    if (*milli < 0) check(q.is_negative());
    if (q.is_whole_number() && q.whole_value()) check(*milli / 1000 == *q.whole_value());
  }
  // Order against a neighbour: q + 1n when it is a whole number.
  if (const auto whole = q.whole_value(); whole && *whole < std::numeric_limits<std::int64_t>::max()) {
    check(compare(q, Quantity::from_int(*whole + 1)) == std::strong_ordering::less);
  }
  return 0;
}
