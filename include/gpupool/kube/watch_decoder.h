// Incremental decoding of a watch stream: newline-delimited (or simply
// concatenated) JSON objects {"type": "...", "object": {...}}. Bytes are fed as
// they arrive, split anywhere; only the event being received is buffered.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace gpupool::kube {

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

std::string_view to_string(WatchEventType type);

struct WatchEvent {
  WatchEventType type;
  // The raw JSON of "object", valid only during the callback: decode it with a
  // DOM or a projection (json_projection.h) as the caller needs.
  std::string_view object;
  // object.metadata.resourceVersion; empty for ERROR events.
  std::string resource_version;
};

class WatchDecoder {
 public:
  // Largest single event accepted; a larger one is treated as garbage.
  explicit WatchDecoder(std::size_t max_event_bytes = 64u << 20);

  // Feeds the next bytes; calls `sink` for each event completed by them, in
  // order. Throws DecodeError on malformed input (bad JSON, missing or unknown
  // "type", missing "object", an event over the size limit); after that the
  // decoder must not be used again (the stream is broken: reconnect).
  void feed(std::string_view bytes, const std::function<void(const WatchEvent&)>& sink);

  // True when bytes of an unfinished event are held (a stream ending now was cut mid-event).
  bool has_partial_event() const;
  std::size_t buffered_bytes() const;

 private:
  void decode_frame(const std::function<void(const WatchEvent&)>& sink);

  std::size_t max_event_bytes_;
  std::string frame_;   // bytes of the event being received
  int depth_ = 0;       // brace/bracket nesting inside the frame
  bool in_string_ = false;
  bool escaped_ = false;
  bool broken_ = false;
};

}  // namespace gpupool::kube
