// Incremental decoding of a watch stream: newline-delimited (or simply
// concatenated) JSON objects {"type": "...", "object": {...}}. Bytes are fed as
// they arrive, split anywhere; only the event being received is buffered.
//
// Framing checks the JSON structure byte by byte (brackets, strings, escapes,
// commas and colons), so garbage is reported where it starts, not when the
// buffer limit is hit. A stream cut mid-event and continued with a new event
// fails at the new event's first byte, or, when the cut fell just before a
// value (the new event then reads as that value), at the event after it.
// Each complete event is then decoded with RapidJSON's SAX reader, which
// validates the rest (literals, escapes, UTF-8). DecodeError messages give
// byte offsets counted from the first byte fed to the decoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "gpupool/kube/errors.h"

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

// The ApiError an ERROR event carries: its object is a metav1.Status, decoded
// with decode_api_error. A Status without a code counts as 500.
ApiError error_from_event(const WatchEvent& event);

// Whether `event` is the BOOKMARK that ends a streaming list's initial events
// (metadata.annotations["k8s.io/initial-events-end"] == "true").
bool is_initial_events_end(const WatchEvent& event);

class WatchDecoder {
 public:
  // Largest single event accepted; a larger one is treated as garbage.
  explicit WatchDecoder(std::size_t max_event_bytes = 64u << 20);

  // Feeds the next bytes; calls `sink` for each event completed by them, in
  // order. Throws DecodeError on malformed input (bad JSON, missing or unknown
  // "type", missing "object", an event over the size limit); after that the
  // decoder must not be used again (the stream is broken: reconnect). Later
  // calls throw DecodeError too. An exception thrown by `sink` propagates and
  // breaks the decoder the same way (the rest of `bytes` was not consumed).
  void feed(std::string_view bytes, const std::function<void(const WatchEvent&)>& sink);

  // True when bytes of an unfinished event are held (a stream ending now was cut mid-event).
  bool has_partial_event() const;
  // Bytes of the unfinished event copied into the decoder's own buffer (an
  // event that begins and ends within one feed() is decoded in place).
  std::size_t buffered_bytes() const;

 private:
  // What the framer accepts next, outside strings and literals.
  enum class Expect : std::uint8_t { KeyOrClose, Key, Colon, Value, ValueOrClose, CommaOrClose };

  void scan(std::string_view bytes, const std::function<void(const WatchEvent&)>& sink);
  void close_container(std::uint64_t offset);
  void decode_frame(std::string_view frame, const std::function<void(const WatchEvent&)>& sink);
  [[noreturn]] void fail(const std::string& message);

  std::size_t max_event_bytes_;
  std::string frame_;          // bytes of the event being received, from earlier chunks
  std::string nesting_;        // one '{' or '[' per open container; empty between events
  Expect expect_ = Expect::Value;
  bool in_string_ = false;
  bool string_is_key_ = false;
  bool escaped_ = false;
  bool in_literal_ = false;    // inside a number, true, false or null
  bool broken_ = false;
  std::uint64_t stream_offset_ = 0;  // stream offset of the first byte of the chunk being scanned
  std::uint64_t frame_offset_ = 0;   // stream offset of the current event's '{'
};

}  // namespace gpupool::kube
