// libFuzzer target: label selectors in both forms the operator reads.
//   - A metav1.LabelSelector as JSON, decoded as a GPUPool's nodeSelector and
//     as a GPUPolicy's quota.namespaceSelector (api/codec.h), then matched
//     (api/label_selector.h), checked for pinned GPU models and validated.
//     Its matchLabels must match as the equivalent In expressions do.
//   - The agent's "key=value[,key=value...]" device plugin selectors
//     (node/device_plugin_restart.h), matched against a pod's labels.
//
// Input, in three parts separated by lines "---":
//   selector JSON
//   ---
//   string selectors, one per line
//   ---
//   labels, key=value per line
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/api/codec.h"
#include "gpupool/api/label_selector.h"
#include "gpupool/gpu/catalog.h"
#include "gpupool/node/device_plugin_restart.h"
#include "gpupool/validation/semantic.h"

namespace {

using gpupool::api::LabelSelector;
using Labels = std::map<std::string, std::string>;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

std::vector<std::string_view> split(std::string_view text, std::string_view sep) {
  std::vector<std::string_view> out;
  while (true) {
    const auto at = text.find(sep);
    out.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return out;
    text.remove_prefix(at + sep.size());
  }
}

rapidjson::Value str(std::string_view s, rapidjson::Document::AllocatorType& a) {
  return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// {"apiVersion": ..., "kind": kind, "metadata": {"name": "fuzz"}, "spec": spec}
rapidjson::Document object(const char* kind, const rapidjson::Value& spec) {
  rapidjson::Document doc;
  auto& a = doc.GetAllocator();
  doc.SetObject();
  doc.AddMember("apiVersion", "gpupool.io/v1alpha1", a);
  doc.AddMember("kind", rapidjson::StringRef(kind), a);
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("name", "fuzz", a);
  doc.AddMember("metadata", meta, a);
  doc.AddMember("spec", rapidjson::Value(spec, a), a);
  return doc;
}

// matchLabels rewritten as `In` expressions with one value each.
LabelSelector as_expressions(const LabelSelector& s) {
  LabelSelector out;
  out.match_expressions = s.match_expressions;
  for (const auto& [key, value] : s.match_labels) {
    gpupool::api::LabelSelectorRequirement r;
    r.key = key;
    r.op = gpupool::api::SelectorOperator::in;
    r.values = {value};
    out.match_expressions.push_back(r);
  }
  return out;
}

void check_selector(const LabelSelector& selector, const Labels& labels) {
  check(gpupool::api::selector_matches(selector, labels) ==
        gpupool::api::selector_matches(as_expressions(selector), labels));
  check(gpupool::api::selector_matches(LabelSelector{}, labels));
  const auto& catalog = gpupool::gpu::Catalog::builtin();
  gpupool::api::FieldErrors errors;
  for (const auto* model : gpupool::validation::pinned_models(selector, catalog, gpupool::api::FieldPath("sel"), errors)) {
    check(model != nullptr);
  }
  for (const auto& e : errors) check(e.path.starts_with("sel") && !e.reason.empty());
}

void json_form(std::string_view text, const Labels& labels) {
  rapidjson::Document input;
  input.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
  if (input.HasParseError() || input.IsNull()) return;
  auto& a = input.GetAllocator();

  rapidjson::Value pool_spec(rapidjson::kObjectType);
  pool_spec.AddMember("nodeSelector", rapidjson::Value(input, a), a);
  const auto pool = gpupool::api::decode_gpupool(object("GPUPool", pool_spec));
  rapidjson::Value quota(rapidjson::kObjectType);
  quota.AddMember("namespaceSelector", rapidjson::Value(input, a), a);
  rapidjson::Value policy_spec(rapidjson::kObjectType);
  policy_spec.AddMember("quota", quota, a);
  const auto policy = gpupool::api::decode_gpupolicy(object("GPUPolicy", policy_spec));

  // The selector is the only field that can be wrong in either.
  check(pool.ok() == policy.ok());
  if (!pool.ok()) {
    for (const auto& e : pool.errors) check(e.path.starts_with("spec.nodeSelector") && !e.reason.empty());
    return;
  }
  const LabelSelector& selector = pool.value->spec.node_selector;
  check(policy.value->spec.quota && policy.value->spec.quota->namespace_selector == selector);
  check_selector(selector, labels);

  gpupool::validation::SemanticContext ctx;
  ctx.catalog = &gpupool::gpu::Catalog::builtin();
  for (const auto& e : gpupool::validation::validate(*pool.value, ctx)) check(!e.reason.empty());
}

// The pairs of a device plugin selector, or false when it has an empty or
// '='-less pair (then the reference below does not apply).
bool pairs_of(std::string_view selector, Labels& out) {
  if (selector.empty()) return false;
  for (std::string_view pair : split(selector, ",")) {
    const auto eq = pair.find('=');
    if (eq == std::string_view::npos || eq == 0) return false;
    const auto [it, added] = out.emplace(pair.substr(0, eq), pair.substr(eq + 1));
    if (!added && it->second != pair.substr(eq + 1)) return false;  // k=a,k=b matches nothing
  }
  return true;
}

void string_form(std::string_view lines, const Labels& labels) {
  if (lines.find('\0') != std::string_view::npos) return;  // flags cannot hold NUL
  std::vector<std::string> selectors;
  for (std::string_view line : split(lines, "\n")) selectors.emplace_back(line);

  rapidjson::Document pod;
  auto& a = pod.GetAllocator();
  pod.SetObject();
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("name", "plugin-0", a);
  meta.AddMember("namespace", "gpu-operator", a);
  meta.AddMember("uid", "0000", a);
  rapidjson::Value label_map(rapidjson::kObjectType);
  for (const auto& [k, v] : labels) label_map.AddMember(str(k, a), str(v, a), a);
  meta.AddMember("labels", label_map, a);
  pod.AddMember("metadata", meta, a);
  rapidjson::Value status(rapidjson::kObjectType);
  status.AddMember("phase", "Running", a);
  pod.AddMember("status", status, a);

  const auto selected = gpupool::node::device_plugin_pods({&pod}, selectors);
  check(selected.size() <= 1);
  bool expected = false;
  bool reference = true;
  for (const auto& s : selectors) {
    Labels pairs;
    if (!pairs_of(s, pairs)) {
      reference = reference && s.empty();  // an empty selector selects nothing
      continue;
    }
    LabelSelector as_map;
    as_map.match_labels = pairs;
    expected = expected || gpupool::api::selector_matches(as_map, labels);
  }
  if (reference) check(selected.size() == (expected ? 1u : 0u));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parts = split(text, "\n---\n");
  Labels labels;
  if (parts.size() > 2) {
    for (std::string_view line : split(parts[2], "\n")) {
      const auto eq = line.find('=');
      if (eq != std::string_view::npos && labels.size() < 64) labels.emplace(line.substr(0, eq), line.substr(eq + 1));
    }
  }
  json_form(parts[0], labels);
  if (parts.size() > 1) string_form(parts[1], labels);
  return 0;
}
