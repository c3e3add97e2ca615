#include "gpupool/kube/json_projection.h"

#include <rapidjson/filereadstream.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <system_error>
#include <vector>

#include "gpupool/kube/errors.h"
#include "projection_handler.h"
#include "sax_support.h"

namespace gpupool::kube {

namespace {

using MemoryHandler = detail::ProjectionHandler<rapidjson::MemoryStream>;
using FileHandler = detail::ProjectionHandler<rapidjson::FileReadStream>;

// Read size of the file variant: memory use does not depend on the file's size.
constexpr std::size_t kFileBufferBytes = 256 * 1024;

template <typename Stream>
void parse(Stream& in, detail::ProjectionHandler<Stream>& handler, std::string_view what) {
  rapidjson::Reader reader;
  rapidjson::ParseResult result = reader.Parse<detail::kSaxParseFlags>(in, handler);
  if (result.IsError()) throw DecodeError(detail::describe_parse_error(what, result, handler.error()));
}

}  // namespace

const std::string* find_quantity(const PodProjection::Quantities& quantities, std::string_view resource) {
  for (const auto& [name, text] : quantities) {
    if (name == resource) return &text;
  }
  return nullptr;
}

PodPhase parse_pod_phase(std::string_view text) {
  if (text.empty()) return PodPhase::unset;
  if (text == "Pending") return PodPhase::pending;
  if (text == "Running") return PodPhase::running;
  if (text == "Succeeded") return PodPhase::succeeded;
  if (text == "Failed") return PodPhase::failed;
  if (text == "Unknown") return PodPhase::unknown;
  return PodPhase::other;
}

const PodProjection::Rare& PodProjection::rare() const {
  static const Rare kNone;
  return rare_ ? *rare_ : kNone;
}

PodProjection::Rare& PodProjection::rare_mut() {
  if (!rare_) {
    rare_ = std::make_shared<Rare>();
  } else if (rare_.use_count() > 1) {
    rare_ = std::make_shared<Rare>(*rare_);
  }
  return *rare_;
}

void PodProjection::drop_empty_rare() {
  if (rare_ && *rare_ == Rare{}) rare_.reset();
}

bool PodProjection::operator==(const PodProjection& other) const {
  return ns == other.ns && name == other.name && uid == other.uid && resource_version == other.resource_version &&
         node_name == other.node_name && phase == other.phase && priority == other.priority &&
         deleting == other.deleting && created_ms == other.created_ms && containers == other.containers &&
         rare() == other.rare();
}

PodProjection project_pod(std::string_view pod_json) {
  rapidjson::MemoryStream in(pod_json.data(), pod_json.size());
  MemoryHandler handler(MemoryHandler::Mode::Pod, in);
  parse(in, handler, "decoding a pod");
  handler.pod().drop_empty_rare();
  return std::move(handler.pod());
}

ListMeta scan_list(std::string_view list_json, const std::function<void(std::string_view item_json)>& on_item) {
  rapidjson::MemoryStream in(list_json.data(), list_json.size());
  MemoryHandler handler(MemoryHandler::Mode::RawList, in);
  handler.on_raw_item = on_item;
  handler.raw_base = list_json.data();
  parse(in, handler, "decoding a list");
  return std::move(handler.list_meta());
}

ListMeta project_pod_list(std::string_view list_json, const std::function<void(PodProjection&&)>& on_pod) {
  rapidjson::MemoryStream in(list_json.data(), list_json.size());
  MemoryHandler handler(MemoryHandler::Mode::PodList, in);
  handler.on_pod = on_pod;
  parse(in, handler, "decoding a pod list");
  return std::move(handler.list_meta());
}

ListMeta project_pod_list_file(const std::string& path, const std::function<void(PodProjection&&)>& on_pod) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw std::system_error(errno, std::generic_category(), "cannot open " + path);
  std::vector<char> buffer(kFileBufferBytes);
  rapidjson::FileReadStream in(file.get(), buffer.data(), buffer.size());
  FileHandler handler(FileHandler::Mode::PodList, in);
  handler.on_pod = on_pod;
  try {
    parse(in, handler, "decoding the pod list in " + path);
  } catch (const DecodeError&) {
    // FileReadStream reports a read error as the end of the file: say which it was.
    if (std::ferror(file.get())) throw std::system_error(EIO, std::generic_category(), "cannot read " + path);
    throw;
  }
  return std::move(handler.list_meta());
}

}  // namespace gpupool::kube
