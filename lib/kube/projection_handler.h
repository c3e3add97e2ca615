// Private to lib/kube: the SAX handler behind json_projection.h. One state
// machine reads a pod, a list of pods, or a list whose items are handed out
// as raw text, in a single pass of rapidjson::Reader without building a DOM.
//
// The handler keeps a stack of the containers it reads (Ctx) and, for the
// value after each key, what that value is (Slot). A container nobody reads is
// skipped by counting its nesting, so a key named like a wanted one inside it
// (an annotation "name", spec.template.metadata) never matches. Wrong shapes
// of wanted fields (a string where an object belongs) stop the parse with a
// message naming the field; null counts as absent.
//
// It relies on the recursive reader's order of events: StartObject comes just
// after the '{' was consumed and EndObject just after the '}'.
#pragma once

#include <rapidjson/reader.h>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/common/rfc3339.h"
#include "gpupool/kube/json_projection.h"
#include "sax_support.h"

namespace gpupool::kube::detail {

template <typename Stream>
class ProjectionHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, ProjectionHandler<Stream>> {
 public:
  enum class Mode { Pod, PodList, RawList };

  // `in` is the stream the reader consumes; RawList reads its offsets.
  ProjectionHandler(Mode mode, const Stream& in) : mode_(mode), in_(in) {}

  std::function<void(PodProjection&&)> on_pod;          // PodList
  std::function<void(std::string_view)> on_raw_item;    // RawList
  const char* raw_base = nullptr;                       // RawList: the bytes `in` reads

  PodProjection& pod() { return pod_; }
  ListMeta& list_meta() { return meta_; }
  const std::string& error() const { return error_; }

  bool Key(const char* s, rapidjson::SizeType n, bool) {
    if (skip_ > 0) return true;
    std::string_view k(s, n);
    slot_ = Slot::None;
    switch (stack_.back()) {
      case Ctx::List:
        if (k == "metadata") slot_ = Slot::ListMetadata;
        else if (k == "items") slot_ = Slot::Items;
        break;
      case Ctx::ListMeta:
        if (k == "resourceVersion") slot_ = Slot::ListResourceVersion;
        else if (k == "continue") slot_ = Slot::ListContinue;
        else if (k == "remainingItemCount") slot_ = Slot::ListRemaining;
        break;
      case Ctx::Pod:
        if (k == "metadata") slot_ = Slot::Metadata;
        else if (k == "spec") slot_ = Slot::Spec;
        else if (k == "status") slot_ = Slot::Status;
        break;
      case Ctx::Meta:
        if (k == "name") slot_ = Slot::Name;
        else if (k == "namespace") slot_ = Slot::Namespace;
        else if (k == "uid") slot_ = Slot::Uid;
        else if (k == "resourceVersion") slot_ = Slot::ResourceVersion;
        else if (k == "deletionTimestamp") slot_ = Slot::DeletionTimestamp;
        else if (k == "creationTimestamp") slot_ = Slot::CreationTimestamp;
        break;
      case Ctx::Spec:
        if (k == "nodeName") slot_ = Slot::NodeName;
        else if (k == "priority") slot_ = Slot::Priority;
        else if (k == "containers") slot_ = Slot::Containers;
        else if (k == "initContainers") slot_ = Slot::InitContainers;
        else if (k == "schedulingGates") slot_ = Slot::SchedulingGates;
        else if (k == "nodeSelector") slot_ = Slot::NodeSelector;
        else if (k == "overhead") slot_ = Slot::Overhead;
        else if (k == "resourceClaims") slot_ = Slot::ResourceClaims;
        break;
      case Ctx::Container:
        if (k == "name") slot_ = Slot::ContainerName;
        else if (k == "resources") slot_ = Slot::Resources;
        else if (k == "restartPolicy") slot_ = Slot::RestartPolicy;
        break;
      case Ctx::Gate:
        if (k == "name") slot_ = Slot::GateName;
        break;
      case Ctx::Claim:
        if (k == "name") slot_ = Slot::ClaimName;
        else if (k == "resourceClaimName") slot_ = Slot::ClaimSourceName;
        else if (k == "resourceClaimTemplateName") slot_ = Slot::ClaimTemplateName;
        break;
      case Ctx::Resources:
        if (k == "requests") slot_ = Slot::Requests;
        else if (k == "limits") slot_ = Slot::Limits;
        break;
      case Ctx::Quantities:
        slot_ = Slot::Quantity;
        entry_key_.assign(s, n);
        break;
      case Ctx::Strings:
        slot_ = Slot::StringValue;
        entry_key_.assign(s, n);
        break;
      case Ctx::Status:
        if (k == "phase") slot_ = Slot::Phase;
        break;
      default: break;
    }
    return true;
  }

  bool String(const char* s, rapidjson::SizeType n, bool) {
    if (skip_ > 0) return true;
    Slot slot = take();
    std::string* target = string_target(slot);
    if (target != nullptr) {
      target->assign(s, n);
      return true;
    }
    switch (slot) {
      case Slot::None: return true;
      case Slot::Quantity: set_quantity(std::string(s, n)); return true;
      case Slot::StringValue: (*strings_)[entry_key_].assign(s, n); return true;
      case Slot::DeletionTimestamp: pod_.deleting = true; return true;
      case Slot::RestartPolicy: container_->restart_always = std::string_view(s, n) == "Always"; return true;
      case Slot::Phase: pod_.phase = parse_pod_phase(std::string_view(s, n)); return true;
      case Slot::CreationTimestamp: {
        const auto t = parse_rfc3339(std::string_view(s, n));
        pod_.created_ms = t ? std::chrono::duration_cast<std::chrono::milliseconds>(t->time_since_epoch()).count() : 0;
        return true;
      }
      default: return wrong_type(slot, "a string");
    }
  }

  // Numbers come as their text (kParseNumbersAsStringsFlag).
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    if (skip_ > 0) return true;
    Slot slot = take();
    switch (slot) {
      case Slot::None: return true;
      case Slot::Quantity: set_quantity(std::string(s, n)); return true;
      case Slot::Priority: {
        int32_t value = 0;
        auto [end, ec] = std::from_chars(s, s + n, value);
        if (ec != std::errc() || end != s + n) return stop("spec.priority is not a 32-bit integer");
        pod_.priority = value;
        return true;
      }
      case Slot::ListRemaining: {
        int64_t value = 0;
        auto [end, ec] = std::from_chars(s, s + n, value);
        if (ec != std::errc() || end != s + n) return stop("metadata.remainingItemCount is not an integer");
        meta_.remaining_item_count = value;
        return true;
      }
      default: return wrong_type(slot, "a number");
    }
  }

  bool Bool(bool) {
    if (skip_ > 0) return true;
    Slot slot = take();
    if (slot == Slot::None) return true;
    return wrong_type(slot, "a boolean");
  }

  bool Null() {
    if (skip_ > 0) return true;
    // null is an absent field
    return take() == Slot::Root ? wrong_type(Slot::Root, "null") : true;
  }

  bool StartObject() {
    if (skip_ > 0) return enter_skipped();
    if (stack_.size() >= kMaxNesting) return too_deep();
    if (stack_.empty()) {
      stack_.push_back(mode_ == Mode::Pod ? Ctx::Pod : Ctx::List);
      return true;
    }
    Slot slot = take();
    switch (slot) {
      case Slot::None: return enter_skipped();
      case Slot::ListMetadata: stack_.push_back(Ctx::ListMeta); return true;
      case Slot::Item:
        if (mode_ == Mode::RawList) {
          raw_begin_ = in_.Tell() - 1;  // the '{' was just consumed
          raw_item_ = true;
          return enter_skipped();
        }
        stack_.push_back(Ctx::Pod);
        return true;
      case Slot::Metadata: stack_.push_back(Ctx::Meta); return true;
      case Slot::Spec: stack_.push_back(Ctx::Spec); return true;
      case Slot::Status: stack_.push_back(Ctx::Status); return true;
      case Slot::Container:
      case Slot::InitContainer: {
        auto& list = slot == Slot::Container ? pod_.containers : pod_.rare_mut().init_containers;
        container_ = &list.emplace_back();
        stack_.push_back(Ctx::Container);
        return true;
      }
      case Slot::Resources: stack_.push_back(Ctx::Resources); return true;
      case Slot::Requests:
      case Slot::Limits:
        quantities_ = slot == Slot::Requests ? &container_->requests : &container_->limits;
        stack_.push_back(Ctx::Quantities);
        return true;
      case Slot::Overhead:
        quantities_ = &pod_.rare_mut().overhead;
        stack_.push_back(Ctx::Quantities);
        return true;
      case Slot::NodeSelector:
        strings_ = &pod_.rare_mut().node_selector;
        stack_.push_back(Ctx::Strings);
        return true;
      case Slot::Gate:
        pod_.rare_mut().scheduling_gates.emplace_back();
        stack_.push_back(Ctx::Gate);
        return true;
      case Slot::Claim:
        pod_.rare_mut().resource_claims.emplace_back();
        pod_.rare_mut().claim_sources.emplace_back();
        stack_.push_back(Ctx::Claim);
        return true;
      default: return wrong_type(slot, "an object");
    }
  }

  bool EndObject(rapidjson::SizeType) {
    if (skip_ > 0) {
      if (--skip_ == 0 && raw_item_) {
        raw_item_ = false;
        const std::size_t end = in_.Tell();  // just past the '}'
        on_raw_item(std::string_view(raw_base + raw_begin_, end - raw_begin_));
      }
      return true;
    }
    const Ctx done = stack_.back();
    stack_.pop_back();
    if (done == Ctx::Pod && mode_ == Mode::PodList) {
      pod_.drop_empty_rare();
      on_pod(std::move(pod_));
      pod_ = PodProjection{};
    }
    return true;
  }

  bool StartArray() {
    if (skip_ > 0) return enter_skipped();
    if (stack_.size() >= kMaxNesting) return too_deep();
    Slot slot = take();
    switch (slot) {
      case Slot::None: return enter_skipped();
      case Slot::Items: stack_.push_back(Ctx::Items); return true;
      case Slot::Containers: stack_.push_back(Ctx::Containers); return true;
      case Slot::InitContainers: stack_.push_back(Ctx::InitContainers); return true;
      case Slot::SchedulingGates: stack_.push_back(Ctx::Gates); return true;
      case Slot::ResourceClaims: stack_.push_back(Ctx::Claims); return true;
      default: return wrong_type(slot, "an array");
    }
  }

  bool EndArray(rapidjson::SizeType) {
    if (skip_ > 0) {
      --skip_;
      return true;
    }
    stack_.pop_back();
    return true;
  }

 private:
  // The containers read, innermost last.
  enum class Ctx : std::uint8_t {
    List, ListMeta, Items,
    Pod, Meta, Spec, Containers, InitContainers, Container, Resources, Quantities, Status,
    Strings,        // spec.nodeSelector: string values
    Gates, Gate,    // spec.schedulingGates and one of its entries
    Claims, Claim,  // spec.resourceClaims and one of its entries
  };
  // What the next value is: set by a key, or by the array it is an element of.
  enum class Slot : std::uint8_t {
    None, Root, ListMetadata, ListResourceVersion, ListContinue, ListRemaining, Items, Item,
    Metadata, Spec, Status, Namespace, Name, Uid, ResourceVersion, DeletionTimestamp, NodeName, Priority, Containers, InitContainers, Container,
    InitContainer, ContainerName, Resources, Requests, Limits, Quantity, Phase,
    CreationTimestamp, NodeSelector, StringValue, Overhead, RestartPolicy,
    SchedulingGates, Gate, GateName, ResourceClaims, Claim, ClaimName, ClaimSourceName, ClaimTemplateName,
  };

  Slot take() {
    if (stack_.empty()) return Slot::Root;
    switch (stack_.back()) {
      case Ctx::Items: return Slot::Item;
      case Ctx::Containers: return Slot::Container;
      case Ctx::InitContainers: return Slot::InitContainer;
      case Ctx::Gates: return Slot::Gate;
      case Ctx::Claims: return Slot::Claim;
      default: {
        Slot s = slot_;
        slot_ = Slot::None;
        return s;
      }
    }
  }

  // A key served twice keeps its last value, as a map would.
  void set_quantity(std::string value) {
    for (auto& [name, text] : *quantities_) {
      if (name == entry_key_) {
        text = std::move(value);
        return;
      }
    }
    quantities_->emplace_back(entry_key_, std::move(value));
  }

  std::string* string_target(Slot slot) {
    switch (slot) {
      case Slot::ListResourceVersion: return &meta_.resource_version;
      case Slot::ListContinue: return &meta_.continue_token;
      case Slot::Namespace: return &pod_.ns;
      case Slot::Name: return &pod_.name;
      case Slot::Uid: return &pod_.uid;
      case Slot::ResourceVersion: return &pod_.resource_version;
      case Slot::NodeName: return &pod_.node_name;
      case Slot::ContainerName: return &container_->name;
      case Slot::GateName: return &pod_.rare_mut().scheduling_gates.back();
      case Slot::ClaimName: return &pod_.rare_mut().resource_claims.back();
      case Slot::ClaimSourceName: return &pod_.rare_mut().claim_sources.back().claim_name;
      case Slot::ClaimTemplateName: return &pod_.rare_mut().claim_sources.back().template_name;
      default: return nullptr;
    }
  }

  const char* field_name(Slot slot) const {
    switch (slot) {
      case Slot::Root: return mode_ == Mode::Pod ? "the pod" : "the list";
      case Slot::ListMetadata: return "list metadata";
      case Slot::ListResourceVersion: return "list metadata.resourceVersion";
      case Slot::ListContinue: return "list metadata.continue";
      case Slot::ListRemaining: return "list metadata.remainingItemCount";
      case Slot::Items: return "list items";
      case Slot::Item: return "an element of items";
      case Slot::Metadata: return "metadata";
      case Slot::Spec: return "spec";
      case Slot::Status: return "status";
      case Slot::Namespace: return "metadata.namespace";
      case Slot::Name: return "metadata.name";
      case Slot::Uid: return "metadata.uid";
      case Slot::ResourceVersion: return "metadata.resourceVersion";
      case Slot::DeletionTimestamp: return "metadata.deletionTimestamp";
      case Slot::NodeName: return "spec.nodeName";
      case Slot::Priority: return "spec.priority";
      case Slot::Containers: return "spec.containers";
      case Slot::InitContainers: return "spec.initContainers";
      case Slot::Container: return "an element of spec.containers";
      case Slot::InitContainer: return "an element of spec.initContainers";
      case Slot::ContainerName: return "container name";
      case Slot::Resources: return "container resources";
      case Slot::Requests: return "container resources.requests";
      case Slot::Limits: return "container resources.limits";
      case Slot::Quantity: return "a resource quantity";
      case Slot::Phase: return "status.phase";
      case Slot::CreationTimestamp: return "metadata.creationTimestamp";
      case Slot::NodeSelector: return "spec.nodeSelector";
      case Slot::StringValue: return "a value of spec.nodeSelector";
      case Slot::Overhead: return "spec.overhead";
      case Slot::RestartPolicy: return "container restartPolicy";
      case Slot::SchedulingGates: return "spec.schedulingGates";
      case Slot::Gate: return "an element of spec.schedulingGates";
      case Slot::GateName: return "spec.schedulingGates[].name";
      case Slot::ResourceClaims: return "spec.resourceClaims";
      case Slot::Claim: return "an element of spec.resourceClaims";
      case Slot::ClaimName: return "spec.resourceClaims[].name";
      case Slot::ClaimSourceName: return "spec.resourceClaims[].resourceClaimName";
      case Slot::ClaimTemplateName: return "spec.resourceClaims[].resourceClaimTemplateName";
      case Slot::None: break;
    }
    return "a field";
  }

  static const char* expected_type(Slot slot) {
    switch (slot) {
      case Slot::Root: case Slot::ListMetadata: case Slot::Item: case Slot::Metadata: case Slot::Spec:
      case Slot::Status: case Slot::Container: case Slot::InitContainer: case Slot::Resources:
      case Slot::Requests: case Slot::Limits: case Slot::NodeSelector: case Slot::Overhead:
      case Slot::Gate: case Slot::Claim:
        return "an object";
      case Slot::Items: case Slot::Containers: case Slot::InitContainers:
      case Slot::SchedulingGates: case Slot::ResourceClaims:
        return "an array";
      case Slot::Priority: case Slot::ListRemaining: return "an integer";
      case Slot::Quantity: return "a string or a number";
      default: return "a string";
    }
  }

  bool wrong_type(Slot slot, const char* found) {
    return stop(std::string(field_name(slot)) + " must be " + expected_type(slot) + ", found " + found);
  }

  bool enter_skipped() {
    if (stack_.size() + skip_ >= kMaxNesting) return too_deep();
    ++skip_;
    return true;
  }

  bool too_deep() { return stop("nesting deeper than " + std::to_string(kMaxNesting) + " levels"); }

  bool stop(std::string message) {
    error_ = std::move(message);
    return false;
  }

  Mode mode_;
  const Stream& in_;
  std::vector<Ctx> stack_;
  std::size_t skip_ = 0;  // nesting inside a skipped container
  Slot slot_ = Slot::None;
  PodProjection pod_;
  ListMeta meta_;
  PodProjection::Container* container_ = nullptr;           // the container being read
  PodProjection::Quantities* quantities_ = nullptr;           // requests, limits or overhead being read
  std::map<std::string, std::string>* strings_ = nullptr;     // nodeSelector being read
  std::string entry_key_;                                     // key of the quantity or string being read
  bool raw_item_ = false;
  std::size_t raw_begin_ = 0;
  std::string error_;
};

}  // namespace gpupool::kube::detail
