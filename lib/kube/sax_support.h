// Private to lib/kube: what the SAX decoders (watch_decoder.cpp,
// json_projection.cpp) share: the reader flags, the nesting limit, and the
// wording of a DecodeError raised from a rapidjson parse result.
#pragma once

#include <rapidjson/reader.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace gpupool::kube::detail {

// Numbers arrive as their source text: quantities keep their exact spelling,
// and numbers nobody reads are never converted.
inline constexpr unsigned kSaxParseFlags = rapidjson::kParseNumbersAsStringsFlag;

// Deepest nesting accepted. rapidjson's reader recurses once per level, so an
// unbounded depth would let hostile input exhaust the stack; real objects
// stay far below this.
inline constexpr std::size_t kMaxNesting = 512;

// "<what>: <reason> at byte <offset>", where reason is `handler_error` when the
// handler stopped the parse and rapidjson's own message otherwise.
// `base_offset` is added to the reader's offset (a frame's place in a stream).
std::string describe_parse_error(std::string_view what, const rapidjson::ParseResult& result,
                                 std::string_view handler_error, std::size_t base_offset = 0);

}  // namespace gpupool::kube::detail
