#include "gpupool/kube/watch_decoder.h"

#include <rapidjson/document.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <array>
#include <cstdio>

#include "sax_support.h"

namespace gpupool::kube {

namespace {

constexpr bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Characters of numbers and of true/false/null; the SAX pass checks the spelling.
constexpr bool is_literal_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '+' ||
         c == '.';
}

constexpr bool starts_literal(char c) { return (c >= '0' && c <= '9') || c == '-' || c == 't' || c == 'f' || c == 'n'; }

std::string describe_char(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  std::array<char, 8> hex{};
  std::snprintf(hex.data(), hex.size(), "0x%02x", u);
  return std::string("byte ") + hex.data();
}

// SAX handler for one complete event: finds "type", the byte range of
// "object" and object.metadata.resourceVersion; everything else is skipped.
class EventHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, EventHandler> {
 public:
  explicit EventHandler(const rapidjson::MemoryStream& in) : in_(in) {}

  bool Key(const char* s, rapidjson::SizeType n, bool) {
    std::string_view key(s, n);
    key_ = Slot::Other;
    switch (where()) {
      case Where::Event:
        if (key == "type") key_ = Slot::Type;
        if (key == "object") key_ = Slot::Object;
        break;
      case Where::Object:
        if (key == "metadata") key_ = Slot::Metadata;
        break;
      case Where::Metadata:
        if (key == "resourceVersion") key_ = Slot::ResourceVersion;
        break;
      case Where::Other: break;
    }
    return true;
  }

  bool String(const char* s, rapidjson::SizeType n, bool) {
    switch (take()) {
      case Slot::Type: type_.assign(s, n); has_type_ = true; return true;
      case Slot::ResourceVersion: resource_version_.assign(s, n); return true;
      case Slot::Object: return stop("\"object\" is not a JSON object");
      default: return true;
    }
  }

  bool RawNumber(const char*, rapidjson::SizeType, bool) { return Default(); }

  bool Default() {
    switch (take()) {
      case Slot::Type: return stop("\"type\" is not a string");
      case Slot::Object: return stop("\"object\" is not a JSON object");
      default: return true;
    }
  }

  bool StartObject() {
    Slot slot = take();
    if (slot == Slot::Type) return stop("\"type\" is not a string");
    Where w = Where::Other;
    if (depth_ == 0) {
      w = Where::Event;
    } else if (slot == Slot::Object) {
      w = Where::Object;
      // The reader has just consumed the '{'.
      object_begin_ = in_.Tell() - 1;
    } else if (slot == Slot::Metadata) {
      w = Where::Metadata;
    }
    ++depth_;
    if (depth_ < where_.size()) where_[depth_] = w;
    return true;
  }

  bool EndObject(rapidjson::SizeType) {
    if (where() == Where::Object) {
      object_end_ = in_.Tell();  // just past the '}'
      has_object_ = true;
    }
    --depth_;
    return true;
  }

  bool StartArray() {
    if (!Default()) return false;
    ++depth_;
    if (depth_ < where_.size()) where_[depth_] = Where::Other;
    return true;
  }

  bool EndArray(rapidjson::SizeType) {
    --depth_;
    return true;
  }

  const std::string& error() const { return error_; }
  bool has_type() const { return has_type_; }
  const std::string& type() const { return type_; }
  bool has_object() const { return has_object_; }
  std::size_t object_begin() const { return object_begin_; }
  std::size_t object_end() const { return object_end_; }
  std::string& resource_version() { return resource_version_; }

 private:
  // Which object we are in; only the first levels matter.
  enum class Where : std::uint8_t { Other, Event, Object, Metadata };
  // What the value after the last key is.
  enum class Slot : std::uint8_t { Other, Type, Object, Metadata, ResourceVersion };

  Where where() const { return depth_ < where_.size() ? where_[depth_] : Where::Other; }
  Slot take() {
    Slot s = key_;
    key_ = Slot::Other;
    return s;
  }
  bool stop(std::string message) {
    error_ = std::move(message);
    return false;
  }

  const rapidjson::MemoryStream& in_;
  std::array<Where, 4> where_{};
  std::size_t depth_ = 0;
  Slot key_ = Slot::Other;
  bool has_type_ = false;
  bool has_object_ = false;
  std::string type_;
  std::string resource_version_;
  std::size_t object_begin_ = 0;
  std::size_t object_end_ = 0;
  std::string error_;
};

bool parse_type(std::string_view text, WatchEventType& type) {
  static constexpr std::array<std::pair<std::string_view, WatchEventType>, 5> kTypes{{
      {"ADDED", WatchEventType::Added},
      {"MODIFIED", WatchEventType::Modified},
      {"DELETED", WatchEventType::Deleted},
      {"BOOKMARK", WatchEventType::Bookmark},
      {"ERROR", WatchEventType::Error},
  }};
  for (const auto& [name, t] : kTypes) {
    if (name == text) {
      type = t;
      return true;
    }
  }
  return false;
}

}  // namespace

std::string_view to_string(WatchEventType type) {
  switch (type) {
    case WatchEventType::Added: return "ADDED";
    case WatchEventType::Modified: return "MODIFIED";
    case WatchEventType::Deleted: return "DELETED";
    case WatchEventType::Bookmark: return "BOOKMARK";
    case WatchEventType::Error: return "ERROR";
  }
  return "UNKNOWN";
}

ApiError error_from_event(const WatchEvent& event) { return decode_api_error(500, event.object); }

bool is_initial_events_end(const WatchEvent& event) {
  if (event.type != WatchEventType::Bookmark) return false;
  rapidjson::Document doc;
  doc.Parse(event.object.data(), event.object.size());
  if (doc.HasParseError() || !doc.IsObject()) return false;
  auto meta = doc.FindMember("metadata");
  if (meta == doc.MemberEnd() || !meta->value.IsObject()) return false;
  auto annotations = meta->value.FindMember("annotations");
  if (annotations == meta->value.MemberEnd() || !annotations->value.IsObject()) return false;
  auto end = annotations->value.FindMember("k8s.io/initial-events-end");
  return end != annotations->value.MemberEnd() && end->value.IsString() &&
         std::string_view(end->value.GetString(), end->value.GetStringLength()) == "true";
}

WatchDecoder::WatchDecoder(std::size_t max_event_bytes) : max_event_bytes_(max_event_bytes) {}

bool WatchDecoder::has_partial_event() const { return !nesting_.empty(); }

std::size_t WatchDecoder::buffered_bytes() const { return frame_.size(); }

void WatchDecoder::fail(const std::string& message) {
  broken_ = true;
  throw DecodeError("watch stream: " + message);
}

void WatchDecoder::feed(std::string_view bytes, const std::function<void(const WatchEvent&)>& sink) {
  if (broken_) throw DecodeError("watch stream: the decoder already failed; reconnect with a new decoder");
  try {
    scan(bytes, sink);
  } catch (...) {
    broken_ = true;
    throw;
  }
}

void WatchDecoder::scan(std::string_view bytes, const std::function<void(const WatchEvent&)>& sink) {
  const char* data = bytes.data();
  const std::size_t n = bytes.size();
  std::size_t start = 0;  // where this chunk's part of the current event begins
  auto at = [&](std::size_t i) { return " at byte " + std::to_string(stream_offset_ + i); };

  for (std::size_t i = 0; i < n; ++i) {
    if (in_string_) {
      // Hot loop: most bytes of an event are inside strings.
      while (i < n) {
        char c = data[i];
        if (escaped_) {
          escaped_ = false;
        } else if (c == '\\') {
          escaped_ = true;
        } else if (c == '"') {
          break;
        }
        // JSON forbids raw control characters in strings; a raw newline here
        // usually means an event was cut off and a new one started.
        if (static_cast<unsigned char>(c) < 0x20) fail("raw control character inside a string" + at(i));
        ++i;
      }
      if (i == n) break;
      in_string_ = false;
      expect_ = string_is_key_ ? Expect::Colon : Expect::CommaOrClose;
      continue;
    }
    const char c = data[i];
    if (in_literal_) {
      if (is_literal_char(c)) continue;
      in_literal_ = false;
      expect_ = Expect::CommaOrClose;
    }
    if (is_space(c)) continue;

    if (nesting_.empty()) {
      if (c != '{') fail("expected '{' to start an event, found " + describe_char(c) + at(i));
      frame_offset_ = stream_offset_ + i;
      start = i;
      nesting_.push_back('{');
      expect_ = Expect::KeyOrClose;
      continue;
    }

    bool closed = false;
    switch (expect_) {
      case Expect::KeyOrClose:
        if (c == '}') {
          closed = true;
          break;
        }
        [[fallthrough]];
      case Expect::Key:
        if (c != '"') fail("expected a member name, found " + describe_char(c) + at(i));
        in_string_ = true;
        string_is_key_ = true;
        break;
      case Expect::Colon:
        if (c != ':') fail("expected ':', found " + describe_char(c) + at(i));
        expect_ = Expect::Value;
        break;
      case Expect::ValueOrClose:
        if (c == ']') {
          closed = true;
          break;
        }
        [[fallthrough]];
      case Expect::Value:
        if (c == '{' || c == '[') {
          if (nesting_.size() >= detail::kMaxNesting) {
            fail("nesting deeper than " + std::to_string(detail::kMaxNesting) + " levels" + at(i));
          }
          nesting_.push_back(c);
          expect_ = c == '{' ? Expect::KeyOrClose : Expect::ValueOrClose;
        } else if (c == '"') {
          in_string_ = true;
          string_is_key_ = false;
        } else if (starts_literal(c)) {
          in_literal_ = true;
        } else {
          fail("expected a value, found " + describe_char(c) + at(i));
        }
        break;
      case Expect::CommaOrClose: {
        const bool in_object = nesting_.back() == '{';
        if (c == ',') {
          expect_ = in_object ? Expect::Key : Expect::Value;
        } else if (c == (in_object ? '}' : ']')) {
          closed = true;
        } else {
          fail(std::string("expected ',' or '") + (in_object ? '}' : ']') + "', found " + describe_char(c) + at(i));
        }
        break;
      }
    }
    if (!closed) continue;
    nesting_.pop_back();
    expect_ = Expect::CommaOrClose;
    if (!nesting_.empty()) continue;

    // The event is complete: decode it in place when it lies within this chunk.
    std::string_view frame;
    if (frame_.empty()) {
      frame = bytes.substr(start, i + 1 - start);
    } else {
      frame_.append(data + start, i + 1 - start);
      frame = frame_;
    }
    if (frame.size() > max_event_bytes_) {
      fail("event at byte " + std::to_string(frame_offset_) + " is larger than the limit of " +
           std::to_string(max_event_bytes_) + " bytes");
    }
    decode_frame(frame, sink);
    frame_.clear();
    // Do not keep a huge buffer alive for the rest of the stream after one big event.
    if (frame_.capacity() > (1u << 20)) frame_.shrink_to_fit();
  }

  if (!nesting_.empty()) {
    frame_.append(data + start, n - start);
    if (frame_.size() > max_event_bytes_) {
      fail("event at byte " + std::to_string(frame_offset_) + " is larger than the limit of " +
           std::to_string(max_event_bytes_) + " bytes");
    }
  }
  stream_offset_ += n;
}

void WatchDecoder::decode_frame(std::string_view frame, const std::function<void(const WatchEvent&)>& sink) {
  rapidjson::MemoryStream in(frame.data(), frame.size());
  EventHandler handler(in);
  rapidjson::Reader reader;
  rapidjson::ParseResult result =
      reader.Parse<detail::kSaxParseFlags | rapidjson::kParseValidateEncodingFlag>(in, handler);
  const std::string where = "event at byte " + std::to_string(frame_offset_);
  if (result.IsError()) fail(detail::describe_parse_error(where, result, handler.error(), frame_offset_));
  if (!handler.has_type()) fail(where + " has no \"type\"");
  WatchEvent event{};
  if (!parse_type(handler.type(), event.type)) fail(where + " has an unknown type \"" + handler.type() + "\"");
  if (!handler.has_object()) fail(where + " has no \"object\"");
  event.object = frame.substr(handler.object_begin(), handler.object_end() - handler.object_begin());
  if (event.type != WatchEventType::Error) event.resource_version = std::move(handler.resource_version());
  sink(event);
}

}  // namespace gpupool::kube
