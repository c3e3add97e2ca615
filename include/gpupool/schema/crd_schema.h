// Offline validation of objects against the OpenAPI v3 schemas of
// CustomResourceDefinitions, as kube-apiserver applies them on create/update
// (with kubectl's --validate=strict, which makes unknown fields errors).
//
// validate() reports, in document order (an object's problems before its
// fields', fields in the order they appear in the object, then missing
// required fields in the schema's order):
//  - apiVersion/kind: a kind the set does not know is one error at `kind`; a
//    known kind in an unknown version an error at `apiVersion`; a version
//    that is not served an error at `apiVersion`.
//  - metadata: name (or generateName) required, and a DNS-1123 subdomain of at
//    most 253 characters; namespace, when given for a namespaced kind, a
//    DNS-1123 label (a cluster-scoped object's namespace is ignored, as
//    kubectl does); unknown metadata fields are errors (strict decoding);
//    labels/annotations are not checked.
//  - the structural schema: type, nullable, properties, required,
//    additionalProperties (schema or false), items, enum, minimum/maximum
//    (+ exclusive), minLength/maxLength (Unicode code points),
//    pattern, minItems/maxItems, minProperties/maxProperties, format
//    (date-time, date, int32, int64 — see below), allOf/anyOf/oneOf/not,
//    x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields,
//    x-kubernetes-embedded-resource (an object with apiVersion, kind and
//    metadata allowed), x-kubernetes-list-type set/map (duplicates are
//    `Duplicate value`), unknown fields (`unknown field "spec.x"`).
//  - A required field that has a `default` in its schema is not reported
//    missing: the apiserver would default it before validating. Defaults are
//    otherwise not applied.
//
// Messages follow apiextensions-apiserver's conversion of kube-openapi errors
// into field errors, e.g.
//   spec.replicas  Invalid value: 70: spec.replicas in body should be less than or equal to 64
//   spec.mode      Unsupported value: "x": supported values: "a", "b"
//   spec.name      Required value
//   spec.count     Invalid value: "string": spec.count in body must be of type integer: "string"
//   spec.tags[2]   Duplicate value: "a"
//   spec.fooBar    unknown field "spec.fooBar"
//
// Deliberate differences from kube-apiserver:
//  - integer: like kube-openapi, a JSON float with an integral value (3.0)
//    is accepted as an integer (kube-apiserver decodes 3.0 to float64 and
//    IsFloat64AJSONInteger accepts it).
//  - format int32 is range-checked (the apiserver does not check it, but the
//    operator's typed decoding would fail); int64 needs nothing more.
//  - pattern uses std::regex ECMAScript, not Go's RE2: the same for the
//    simple patterns CRDs use (classes, groups, alternation, anchors, counted
//    repetition); a pattern std::regex cannot compile (RE2-only syntax such as
//    (?i) or \pL) is not checked, and strings longer than 4096 bytes are not
//    matched (libstdc++'s matcher recurses per character).
//  - x-kubernetes-validations (CEL) are not evaluated (there is no CEL
//    engine); CrdKind::cel_rules() lists them, and gpupool's semantic
//    validator re-implements their invariants.
//  - anyOf/oneOf failures are reported as one error at the field (plus the
//    errors of the closest alternative for anyOf).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "gpupool/api/field_error.h"
#include "gpupool/schema/schema_node.h"

namespace gpupool::schema {

// A malformed CRD (or CRD file).
class CrdError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One x-kubernetes-validations rule, for reporting.
struct CelRule {
  std::string path;  // where it is declared: "spec", "spec.nodeTaints[*]", "spec.resources[*]"
  std::string rule;
  std::string message;
  std::string message_expression;
  std::string field_path;
  std::string reason;
};

// One version of one kind.
struct CrdKind {
  std::string group;
  std::string version;
  std::string kind;
  std::string plural;
  std::string list_kind;
  std::string scope;  // "Namespaced" or "Cluster"
  bool served = true;
  bool storage = false;
  std::shared_ptr<const rapidjson::Document> openapi_schema;  // the version's openAPIV3Schema
  std::shared_ptr<const SchemaNode> schema;                   // compiled

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  bool namespaced() const { return scope == "Namespaced"; }
  std::vector<CelRule> cel_rules() const;
};

class CrdSchemaSet {
 public:
  // The CRDs compiled into the binary (crds/*.yaml); empty if there were none.
  static const CrdSchemaSet& builtin();
  // Every CustomResourceDefinition document in `text` (multi-document YAML);
  // other kinds of objects are ignored. Throws CrdError naming `origin`.
  static CrdSchemaSet from_yaml(std::string_view text, std::string_view origin);
  // Files and directories as load_manifests reads them. Throws CrdError.
  static CrdSchemaSet load(const std::vector<std::string>& paths);

  void add(const CrdSchemaSet& other);
  const std::vector<CrdKind>& kinds() const { return kinds_; }
  bool empty() const { return kinds_.empty(); }
  const CrdKind* find(std::string_view api_version, std::string_view kind) const;

  // Checks one object (see the header comment).
  api::FieldErrors validate(const rapidjson::Value& object) const;

 private:
  std::vector<CrdKind> kinds_;
};

// The structural-schema part of validate(), for one kind, without the
// apiVersion/kind lookup (metadata is still checked).
api::FieldErrors validate_against(const CrdKind& kind, const rapidjson::Value& object);

// The YAML of every CRD in crds/ as compiled into the binary (documents
// separated by "---"), for installing them (the local cluster does).
std::string_view builtin_crds_yaml();

}  // namespace gpupool::schema
