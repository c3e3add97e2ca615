// gpupoolctl validate's pipeline: schema, then decode, then semantic rules.
#include <set>

#include "gpupool/api/codec.h"
#include "gpupool/api/kinds.h"
#include "gpupool/validation/validate.h"

namespace gpupool::validation {
namespace {

constexpr std::string_view kGroupPrefix = "gpupool.io/";

std::string object_label(const api::Manifest& m) {
  std::string kind = m.kind().empty() ? "object" : m.kind();
  std::string name = m.name().empty() ? "(no name)" : m.name();
  return kind + " " + (m.namespace_().empty() ? name : m.namespace_() + "/" + name);
}

struct Checked {
  const api::Manifest* manifest;
  api::AnyObject object;
};

}  // namespace

std::string format_problem(const Problem& p) {
  std::string out = p.file;
  if (p.line > 0) out += ":" + std::to_string(p.line);
  out += ": ";
  if (!p.object.empty()) out += p.object + ": ";
  if (!p.path.empty()) out += p.path + ": ";
  return out + p.reason;
}

ValidateResult validate_manifests(const api::ManifestSet& manifests, const ValidateOptions& options) {
  ValidateResult result;
  std::vector<Checked> decoded;
  auto report = [&](const api::Manifest& m, const api::FieldErrors& errors) {
    for (const auto& e : errors) {
      result.problems.push_back({m.file, static_cast<int>(m.line), object_label(m), e.path, e.reason});
    }
  };

  // 1. Schema (as the apiserver), 2. decode into the typed objects.
  for (const auto& m : manifests.objects) {
    if (m.api_version().rfind(kGroupPrefix, 0) != 0) {
      ++result.objects_skipped;
      continue;
    }
    ++result.objects_checked;
    api::FieldErrors schema_errors = options.schemas->validate(m.object);
    if (!schema_errors.empty()) {
      report(m, schema_errors);
      continue;  // the decoder would only repeat them
    }
    auto d = api::decode_object(m.object);
    if (!d.value) {
      report(m, d.errors);
      continue;
    }
    decoded.push_back({&m, std::move(*d.value)});
  }

  // 3. Semantic rules, with references resolved against the input.
  SemanticContext ctx;
  ctx.catalog = options.catalog;
  ctx.mig_parted = options.mig_parted;
  // Names come from every object of the kind, valid or not: a pool with a
  // typo is still the pool a quota means.
  std::set<std::string> pools, policies;
  for (const auto& m : manifests.objects) {
    if (m.api_version().rfind(kGroupPrefix, 0) != 0) continue;
    if (m.kind() == "GPUPool") pools.insert(m.name());
    if (m.kind() == "GPUPolicy") policies.insert(m.name());
  }
  if (options.references == References::require ||
      (options.references == References::automatic && !pools.empty())) {
    ctx.pool_names = pools;
  }
  if (options.references == References::require ||
      (options.references == References::automatic && !policies.empty())) {
    ctx.policy_names = policies;
  }
  for (const auto& c : decoded) {
    report(*c.manifest, std::visit([&](const auto& obj) { return validate(obj, ctx); }, c.object));
  }
  return result;
}

}  // namespace gpupool::validation
