// libFuzzer target: any bytes as a watch stream (kube::WatchDecoder), fed in
// the chunks the first input bytes choose, and again in one piece. Both must
// agree: the same events (type, object bytes, resourceVersion), then the same
// error or the same unfinished event. Only DecodeError may escape feed(); an
// event's object is a JSON object's bytes; an ERROR event's Status decodes.
//
// Input: byte 0 % 8 = n, then n chunk lengths (1..256 each, used in turn),
// then the stream. A small event limit exercises the size check.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/kube/errors.h"
#include "gpupool/kube/watch_decoder.h"

namespace {

using gpupool::kube::WatchDecoder;
using gpupool::kube::WatchEvent;
using gpupool::kube::WatchEventType;

constexpr std::size_t kMaxEventBytes = 16 * 1024;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

struct Seen {
  WatchEventType type;
  std::string object;
  std::string resource_version;
  bool operator==(const Seen&) const = default;
};

struct Outcome {
  std::vector<Seen> events;
  std::optional<std::string> error;
  bool partial = false;
  std::size_t buffered = 0;
};

void on_event(const WatchEvent& e, std::vector<Seen>& out) {
  check(e.object.size() >= 2 && e.object.front() == '{' && e.object.back() == '}');
  if (e.type == WatchEventType::Error) {
    check(e.resource_version.empty());
    const gpupool::kube::ApiError error = gpupool::kube::error_from_event(e);
    check(error.what()[0] != '\0');
  }
  out.push_back({e.type, std::string(e.object), e.resource_version});
}

Outcome decode(std::string_view stream, const std::vector<std::size_t>& chunks) {
  Outcome out;
  WatchDecoder decoder(kMaxEventBytes);
  const auto sink = [&](const WatchEvent& e) { on_event(e, out.events); };
  std::size_t at = 0;
  try {
    for (std::size_t i = 0; at < stream.size(); ++i) {
      const std::size_t n = chunks.empty() ? stream.size() : chunks[i % chunks.size()];
      decoder.feed(stream.substr(at, n), sink);
      at += n;
    }
  } catch (const gpupool::kube::DecodeError& e) {
    out.error = e.what();
    // A broken decoder stays broken.
    try {
      decoder.feed("{}", sink);
      check(false);
    } catch (const gpupool::kube::DecodeError&) {
    }
    return out;
  }
  out.partial = decoder.has_partial_event();
  out.buffered = decoder.buffered_bytes();
  check(out.partial || out.buffered == 0);
  return out;
}

bool size_error(const std::optional<std::string>& e) {
  return e && e->find("larger than the limit") != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t n = data[0] % 8;
  if (size < 1 + n) return 0;
  std::vector<std::size_t> chunks;
  for (std::size_t i = 0; i < n; ++i) chunks.push_back(std::size_t{data[1 + i]} + 1);
  const std::string_view stream(reinterpret_cast<const char*>(data) + 1 + n, size - 1 - n);

  const Outcome split = decode(stream, chunks);
  const Outcome whole = decode(stream, {});
  check(split.events == whole.events);
  check(split.error.has_value() == whole.error.has_value());
  // Where a stream breaks does not depend on how it was cut, except that an
  // event over the limit may be noticed before a later bad byte in it.
  if (!size_error(split.error) && !size_error(whole.error)) check(split.error == whole.error);
  check(split.partial == whole.partial && split.buffered == whole.buffered);
  return 0;
}
